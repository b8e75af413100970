/*
 * proc.h -- naming this process so that another process can tell whether it still runs.
 *
 * A pipeline run is recorded as "running" when it starts and as succeeded or failed when
 * it ends; a process killed in between (SIGKILL, power loss) leaves the record running
 * forever. The run therefore records who runs it, and readers of the record ask whether
 * that process still exists. A pid alone is not enough (pids are reused, and restart from
 * 1 after a reboot), so the identity is the host name, the kernel's boot id and the pid
 * with the process's start time (in clock ticks since boot, from /proc/<pid>/stat).
 */
#ifndef WEIR_UTIL_PROC_H
#define WEIR_UTIL_PROC_H

#include <stdbool.h>

/* "host|boot_id|pid|start" for this process (new string), or NULL where /proc is not
 * available (then no run can be found gone; they stay "running", as before). */
char *wr_process_identity(void);

/* True only when the process an identity names has certainly ended: it ran on this host
 * and the host has rebooted since, or no process with that pid and start time exists.
 * False for another host, an unreadable identity, or a process that is still there. */
bool wr_process_gone(const char *identity);

#endif
