/*
 * landlock.c -- the sandbox's file-system (and TCP) rules, as a Landlock ruleset.
 *
 * Landlock denies every access it "handles" except what a rule allows beneath a folder
 * (or on a file). The ruleset handles every file-system right this kernel's ABI knows, so
 * that a right the kernel can check is never left open by omission; from ABI 4 it also
 * handles TCP bind and connect (with no rule: the network stays closed unless the model
 * asked for internet access), and from ABI 6 it scopes abstract unix sockets and
 * signals to the sandbox.
 *
 * What the rules allow (docs/sandbox.md):
 *   exec roots  read files, list folders, execute: system folders (/usr, /lib, /bin),
 *               the interpreter and its libraries, site-packages, the SDK;
 *   read roots  read files, list folders: the project;
 *   a few files of /etc the C library and Python read (ld.so.cache, localtime, hosts...),
 *               /dev/null (read and write), /dev/{zero,random,urandom}, /proc/self, and
 *               /proc/{meminfo,cpuinfo,stat} and /sys/devices/system/cpu, which runtimes
 *               read to size their thread pools;
 *   tmpdir      everything.
 *
 * Rules are granted on folders and are inherited by everything beneath them; Landlock has
 * no "except". When the protected folder (the lake) lies under a root, the root is split:
 * listing is granted on the folders leading to the lake (so the project still imports),
 * and reading on every other entry, recursively, so that no file of the lake can be read.
 *
 * Landlock leaves some operations unchecked (stat, chmod, chown, utime, xattrs; before
 * ABI 3 truncate): seccomp.c refuses the ones that could harm the lake.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pipeline/sandbox.h"
#include "util/fs.h"

/* The constants of ABIs newer than the build machine's kernel headers (Debian 12 ships
 * 6.1's, which stop at ABI 2). Values are the kernel's ABI and never change. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP    (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL               (1ULL << 1)
#endif

/* struct landlock_ruleset_attr as of ABI 6; the kernel is given the prefix its ABI
 * knows (8 bytes before ABI 4, 16 before ABI 6). */
typedef struct ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
} ruleset_attr;

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_EXEC (FS_READ | LANDLOCK_ACCESS_FS_EXECUTE)

int sandbox_landlock_abi(void) {
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int)abi;
}

static uint64_t fs_handled(int abi) {
  uint64_t a = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
               LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
               LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
               LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
               LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) a |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) a |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) a |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  return a;
}

/* Rights that make sense on a file (the kernel refuses directory rights on one). */
static uint64_t file_rights(uint64_t rights) {
  return rights & (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                   LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV);
}

/* Adds `rights` beneath `path` (or on the file). A path that does not exist is skipped:
 * the rules describe what may be reached, and a missing /etc/gai.conf reaches nothing. */
static int add_path(int ruleset, const char *path, uint64_t rights, uint64_t handled) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return 0;
  }
  struct landlock_path_beneath_attr pb;
  memset(&pb, 0, sizeof pb);
  pb.allowed_access = (S_ISDIR(st.st_mode) ? rights : file_rights(rights)) & handled;
  pb.parent_fd = fd;
  int rc = 0;
  if (pb.allowed_access && syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
    rc = errno;
  close(fd);
  return rc;
}

/* Is `inner` the folder `outer` or beneath it? Both absolute and normalised. */
static bool beneath(const char *inner, const char *outer) {
  size_t n = strlen(outer);
  if (n == 1 && outer[0] == '/') return true;
  return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

/* Grants `rights` beneath `root` except on `protect` and everything under it. Listing is
 * granted on the folders between root and protect; every other entry gets `rights`. A
 * root inside `protect` gets nothing. */
static int add_path_except(int ruleset, const char *root, uint64_t rights, uint64_t handled,
                           const char *protect) {
  if (!protect) return add_path(ruleset, root, rights, handled);
  if (beneath(root, protect)) return 0; /* inside the lake: never (the runner refuses such projects) */
  if (!beneath(protect, root)) return add_path(ruleset, root, rights, handled);
  int rc = add_path(ruleset, root, LANDLOCK_ACCESS_FS_READ_DIR, handled);
  if (rc) return rc;
  DIR *d = opendir(root);
  if (!d) return 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char *child = wr_path_join(root, e->d_name);
    /* A symlink's rule lands on its target: one that leads into the lake, or to a folder
     * holding it, is skipped. (Roots are resolved, so only the last name can be one.) */
    struct stat st;
    if (lstat(child, &st) == 0 && S_ISLNK(st.st_mode)) {
      char *real = realpath(child, NULL);
      bool risky = !real || beneath(real, protect) || beneath(protect, real);
      free(real);
      if (risky) {
        free(child);
        continue;
      }
    }
    rc = add_path_except(ruleset, child, rights, handled, protect);
    free(child);
  }
  closedir(d);
  return rc;
}

/* What the C library, the dynamic loader and Python's standard library read in /etc. */
static const char *const ETC_FILES[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                        "/etc/localtime",   "/etc/timezone",   "/etc/nsswitch.conf",
                                        "/etc/passwd",      "/etc/group",      "/etc/os-release",
                                        "/etc/mime.types",  "/etc/hosts",      "/etc/host.conf",
                                        "/etc/resolv.conf", "/etc/gai.conf",   "/etc/services",
                                        "/etc/protocols",   "/etc/ssl",        "/etc/ca-certificates",
                                        "/etc/pki",         "/etc/machine-id", NULL};

/* System folders: programs, libraries and shared data, never a user's files. */
static const char *const SYSTEM_DIRS[] = {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", NULL};

/* Read-only files runtimes consult to size thread pools and arenas. */
static const char *const RUNTIME_FILES[] = {
    "/proc/meminfo", "/proc/cpuinfo", "/proc/stat",   "/sys/devices/system/cpu",
    "/dev/zero",     "/dev/random",   "/dev/urandom", NULL};

int sandbox_landlock_ruleset(const sandbox_policy *p, int abi, weir_error *err) {
  ruleset_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.handled_access_fs = fs_handled(abi);
  size_t size = sizeof attr.handled_access_fs;
  if (abi >= 4) {
    /* No TCP rule is ever added: handling bind and connect closes them. With internet
     * access they are not handled (open). */
    if (!p->internet)
      attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
    size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6) {
    /* Abstract unix sockets and signals stay inside the sandbox: the model cannot signal
     * the runner or the worker, nor talk to a daemon's abstract socket. */
    attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
    size = sizeof attr;
  }
  int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (fd < 0) {
    wr_seterr(err, WEIR_EIO, "cannot create the model sandbox's Landlock ruleset: %s", strerror(errno));
    return -1;
  }
  uint64_t h = attr.handled_access_fs;
  uint64_t write_all = h & ~(uint64_t)(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                                       LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_IOCTL_DEV);
  /* Each grant is (path, rights, except-protected); the first failure is reported. */
  int rc = 0;
  const char *what = NULL;
#define GRANT(path, rights, split)                                                                         \
  do {                                                                                                     \
    if (!rc) {                                                                                             \
      what = (path);                                                                                       \
      rc = (split) ? add_path_except(fd, what, (rights), h, p->protect) : add_path(fd, what, (rights), h); \
    }                                                                                                      \
  } while (0)
  for (size_t i = 0; SYSTEM_DIRS[i]; i++) GRANT(SYSTEM_DIRS[i], FS_EXEC, true);
  for (size_t i = 0; ETC_FILES[i]; i++) GRANT(ETC_FILES[i], FS_READ, false);
  for (size_t i = 0; RUNTIME_FILES[i]; i++) GRANT(RUNTIME_FILES[i], FS_READ, false);
  GRANT("/dev/null",
        LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE, false);
  for (size_t i = 0; i < p->n_exec_roots; i++) GRANT(p->exec_roots[i], FS_EXEC, true);
  for (size_t i = 0; i < p->n_read_roots; i++) GRANT(p->read_roots[i], FS_READ, true);
  if (p->tmpdir) GRANT(p->tmpdir, write_all, false);
#undef GRANT
  if (rc) {
    close(fd);
    wr_seterr(err, WEIR_EIO, "cannot add %s to the model sandbox's Landlock ruleset: %s", what,
                strerror(rc));
    return -1;
  }
  return fd;
}

int sandbox_landlock_enter(int ruleset_fd, int abi) {
  /* /proc/self names this process only once it exists: the child adds it itself. It is
   * the process's own entries (its maps, status, file descriptors), which allocators and
   * runtimes read; a descriptor's target is still checked against the rules on open. */
  int fd = open("/proc/self", O_PATH | O_CLOEXEC);
  if (fd >= 0) {
    struct landlock_path_beneath_attr pb;
    memset(&pb, 0, sizeof pb);
    pb.allowed_access = FS_READ;
    pb.parent_fd = fd;
    if (syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0) {
      int e = errno;
      close(fd);
      return e;
    }
    close(fd);
  }
  (void)abi;
  if (syscall(SYS_landlock_restrict_self, ruleset_fd, 0) != 0) return errno;
  return 0;
}
