/*
 * seccomp.c -- the sandbox's system-call filter, a classic BPF program written by hand
 * (x86_64 only, as weir itself).
 *
 * The filter allows by default and refuses, with an errno the model sees as an ordinary
 * Python exception (PermissionError), what Landlock and the namespaces leave open or what
 * has no place in a transform:
 *
 *   processes    fork, vfork, and clone without CLONE_THREAD (threads stay allowed):
 *                a model starts no program and no child. clone3 answers ENOSYS, so the
 *                C library falls back to clone, whose flags the filter can read (clone3
 *                passes them in memory, which seccomp cannot see).
 *   sockets      socket() for any family but AF_INET/AF_INET6 (and AF_NETLINK with
 *                internet access). Unix sockets reach local daemons that Landlock does
 *                not guard (docker, dbus); socketpair() stays allowed. Without a network
 *                namespace and without internet access, AF_INET/AF_INET6 are refused too:
 *                seccomp then is the only wall, and it must cover UDP as well.
 *   metadata     chmod, chown and their path variants: Landlock does not check them, and
 *                chmod 000 on a data file would lock its owner out of a table. (fchmod and
 *                fchown on a descriptor stay allowed: the descriptor was opened through
 *                Landlock.) truncate(path) too, before Landlock ABI 3.
 *   signals      kill/tgkill/rt_(tg)sigqueueinfo to any process but itself (Landlock ABI 6
 *                scopes signals too; this holds on older kernels), tkill, pidfd signals.
 *   the kernel   namespaces and mounts (unshare, setns, mount and the new mount API,
 *                chroot, pivot_root), tracing and other processes' memory (ptrace,
 *                process_vm_*, kcmp, pidfd_getfd), attack surface no transform needs
 *                (bpf, perf_event_open, userfaultfd, io_uring, keyrings), and the
 *                administrator's calls (modules, reboot, swap, clocks, quotas, syslog...),
 *                the terminal-injection ioctls TIOCSTI/TIOCLINUX, and personality()
 *                changes (some weaken address-space randomisation).
 *
 * Any other architecture's calls (the 32-bit ABIs) kill the process: their numbers differ
 * and a filter checking x86_64 numbers would not stop them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pipeline/sandbox.h"
#include "util/error.h"

/* Calls newer than the build machine's headers (the numbers are the kernel's ABI). */
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_quotactl_fd
#define __NR_quotactl_fd 443
#endif
#ifndef __NR_open_tree_attr
#define __NR_open_tree_attr 467
#endif

/* Placeholders patched in the child with its own pid (see sandbox_seccomp_set_pid). */
#define SELF_PID  0x7ffffff1u
#define SELF_PGRP 0x8000000fu /* (uint32_t)-SELF_PID */

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + (i) * sizeof(uint64_t))

typedef struct prog {
  struct sock_filter *ins;
  size_t n, cap;
} prog;

static void emit(prog *p, struct sock_filter f) {
  if (p->n == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 128;
    p->ins = wr_realloc(p->ins, p->cap * sizeof *p->ins);
  }
  p->ins[p->n++] = f;
}

static void stmt(prog *p, uint16_t code, uint32_t k) { emit(p, (struct sock_filter)BPF_STMT(code, k)); }
static void jump(prog *p, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf) {
  emit(p, (struct sock_filter)BPF_JUMP(code, k, jt, jf));
}

#define RET_ALLOW    SECCOMP_RET_ALLOW
#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))

/* With the call number in the accumulator: `nr` returns `action`. */
static void deny(prog *p, int nr, uint32_t action) {
  jump(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1);
  stmt(p, BPF_RET | BPF_K, action);
}

/* With the call number in the accumulator: for call `nr`, the low 32 bits of argument
 * `arg` are compared with `values`; a match returns `on_match`, anything else `other`.
 * Every path of the block returns, so the accumulator is free inside it. */
static void on_arg(prog *p, int nr, int arg, const uint32_t *values, size_t n, uint32_t on_match,
                   uint32_t other) {
  jump(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, (uint8_t)(1 + 2 * n + 1));
  stmt(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LO(arg));
  for (size_t i = 0; i < n; i++) {
    jump(p, BPF_JMP | BPF_JEQ | BPF_K, values[i], 0, 1);
    stmt(p, BPF_RET | BPF_K, on_match);
  }
  stmt(p, BPF_RET | BPF_K, other);
}

bool sandbox_seccomp_available(void) {
#if defined(__x86_64__)
  /* PR_GET_SECCOMP answers EINVAL on a kernel built without seccomp. */
  return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
#else
  return false;
#endif
}

void sandbox_seccomp_filter(bool internet, bool netns, int landlock_abi, void **out, unsigned short *len) {
  prog p = {0};
  /* 1. The architecture: x86_64 only, and not its x32 ABI (numbers with bit 30 set). */
  stmt(&p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  jump(&p, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
  stmt(&p, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
  stmt(&p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
  jump(&p, BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
  stmt(&p, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);

  /* 2. Processes. */
  deny(&p, __NR_fork, RET_ERRNO(EPERM));
  deny(&p, __NR_vfork, RET_ERRNO(EPERM));
  deny(&p, __NR_clone3, RET_ERRNO(ENOSYS));
  jump(&p, BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4);
  stmt(&p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LO(0));
  jump(&p, BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
  stmt(&p, BPF_RET | BPF_K, RET_ALLOW);
  stmt(&p, BPF_RET | BPF_K, RET_ERRNO(EPERM));

  /* 3. Sockets: which families socket() may create. */
  {
    uint32_t fams[3];
    size_t n = 0;
    if (internet || netns) {
      fams[n++] = AF_INET;
      fams[n++] = AF_INET6;
    }
    if (internet) fams[n++] = AF_NETLINK;
    on_arg(&p, __NR_socket, 0, fams, n, RET_ALLOW, RET_ERRNO(EACCES));
  }

  /* 4. Metadata Landlock does not check. */
  static const int metadata[] = {__NR_chmod, __NR_fchmodat, __NR_fchmodat2,
                                 __NR_chown, __NR_lchown,   __NR_fchownat};
  for (size_t i = 0; i < sizeof metadata / sizeof *metadata; i++) deny(&p, metadata[i], RET_ERRNO(EPERM));
  if (landlock_abi < 3) deny(&p, __NR_truncate, RET_ERRNO(EPERM));

  /* 5. Signals: only to itself (pid or its own process group, which holds only it). */
  {
    uint32_t self[] = {SELF_PID, SELF_PGRP, 0};
    on_arg(&p, __NR_kill, 0, self, 3, RET_ALLOW, RET_ERRNO(EPERM));
    on_arg(&p, __NR_tgkill, 0, self, 1, RET_ALLOW, RET_ERRNO(EPERM));
    on_arg(&p, __NR_rt_sigqueueinfo, 0, self, 1, RET_ALLOW, RET_ERRNO(EPERM));
    on_arg(&p, __NR_rt_tgsigqueueinfo, 0, self, 1, RET_ALLOW, RET_ERRNO(EPERM));
    deny(&p, __NR_tkill, RET_ERRNO(EPERM));
  }

  /* 6. ioctl: the terminal-injection requests. */
  {
    uint32_t tty[] = {0x5412 /* TIOCSTI */, 0x541C /* TIOCLINUX */};
    on_arg(&p, __NR_ioctl, 1, tty, 2, RET_ERRNO(EPERM), RET_ALLOW);
  }
  /* personality(0xffffffff) only reads the current one. */
  {
    uint32_t query[] = {0xffffffffu};
    on_arg(&p, __NR_personality, 0, query, 1, RET_ALLOW, RET_ERRNO(EPERM));
  }

  /* 7. The kernel's other doors. */
  static const int kernel[] = {__NR_unshare,
                               __NR_setns,
                               __NR_mount,
                               __NR_umount2,
                               __NR_pivot_root,
                               __NR_chroot,
                               __NR_move_mount,
                               __NR_open_tree,
                               __NR_fsopen,
                               __NR_fsconfig,
                               __NR_fsmount,
                               __NR_fspick,
                               __NR_mount_setattr,
                               __NR_open_tree_attr,
                               __NR_ptrace,
                               __NR_process_vm_readv,
                               __NR_process_vm_writev,
                               __NR_kcmp,
                               __NR_pidfd_getfd,
                               __NR_pidfd_send_signal,
                               __NR_pidfd_open,
                               __NR_bpf,
                               __NR_perf_event_open,
                               __NR_userfaultfd,
                               __NR_io_uring_setup,
                               __NR_io_uring_enter,
                               __NR_io_uring_register,
                               __NR_keyctl,
                               __NR_add_key,
                               __NR_request_key,
                               __NR_kexec_load,
                               __NR_kexec_file_load,
                               __NR_init_module,
                               __NR_finit_module,
                               __NR_delete_module,
                               __NR_reboot,
                               __NR_swapon,
                               __NR_swapoff,
                               __NR_acct,
                               __NR_settimeofday,
                               __NR_clock_settime,
                               __NR_clock_adjtime,
                               __NR_adjtimex,
                               __NR_iopl,
                               __NR_ioperm,
                               __NR_quotactl,
                               __NR_quotactl_fd,
                               __NR_lookup_dcookie,
                               __NR_open_by_handle_at,
                               __NR_name_to_handle_at,
                               __NR_vhangup,
                               __NR_syslog,
                               __NR_uselib,
                               __NR_sethostname,
                               __NR_setdomainname,
                               __NR_fanotify_init};
  for (size_t i = 0; i < sizeof kernel / sizeof *kernel; i++) deny(&p, kernel[i], RET_ERRNO(EPERM));

  stmt(&p, BPF_RET | BPF_K, RET_ALLOW);
  *out = p.ins;
  *len = (unsigned short)p.n;
}

void sandbox_seccomp_set_pid(void *filter, unsigned short len, int pid) {
  struct sock_filter *f = filter;
  for (unsigned short i = 0; i < len; i++) {
    if (BPF_CLASS(f[i].code) != BPF_JMP) continue;
    if (f[i].k == SELF_PID)
      f[i].k = (uint32_t)pid;
    else if (f[i].k == SELF_PGRP)
      f[i].k = (uint32_t)-pid;
  }
}
