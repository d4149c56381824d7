import fs from "node:fs";

/** A process as /proc describes it (Linux only; elsewhere the list is empty). */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Process group id. Playwright launches the browser detached, so its group is its own pid. */
  pgid: number;
  /** Resident memory in bytes. */
  rssBytes: number;
  /** Arguments, NUL separators replaced by spaces. */
  cmdline: string;
}

function readProcess(pid: number): ProcessInfo | null {
  try {
    const stat = fs.readFileSync(`/proc/${String(pid)}/stat`, "utf8");
    // The command name may contain spaces and parentheses: fields start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const status = fs.readFileSync(`/proc/${String(pid)}/status`, "utf8");
    const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? "0");
    const cmdline = fs.readFileSync(`/proc/${String(pid)}/cmdline`, "utf8").replaceAll("\0", " ").trim();
    const state = fields[0];
    if (state === "Z" || state === "X") return null;
    return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), rssBytes: rssKb * 1024, cmdline };
  } catch {
    return null; // gone meanwhile, or not Linux
  }
}

/** Every live (non-zombie) process readable in /proc. */
export function listProcesses(): ProcessInfo[] {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const out: ProcessInfo[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProcess(Number(name));
    if (info !== null) out.push(info);
  }
  return out;
}

/**
 * A browser's processes: the root, its descendants, and anything left in its process group
 * (children orphaned by a crashed browser keep the group).
 */
export function processTree(rootPid: number, processes: ProcessInfo[] = listProcesses()): ProcessInfo[] {
  const members = new Set<number>([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of processes) {
      if (!members.has(p.pid) && (members.has(p.ppid) || p.pgid === rootPid)) {
        members.add(p.pid);
        grew = true;
      }
    }
  }
  return processes.filter((p) => members.has(p.pid));
}

/** The main browser process launched with `marker` among its arguments, if running. */
export function findBrowserProcess(marker: string): ProcessInfo | null {
  return listProcesses().find((p) => p.cmdline.includes(marker) && !p.cmdline.includes("--type=")) ?? null;
}

/** Sends SIGKILL to every process of a browser's tree; returns how many were signalled. */
export function killProcessTree(rootPid: number): number {
  let killed = 0;
  for (const p of processTree(rootPid)) {
    try {
      process.kill(p.pid, "SIGKILL");
      killed += 1;
    } catch {
      // already gone
    }
  }
  return killed;
}
