// Preloaded (`node --require`) into a process whose CPU a bench measures: when it exits, it writes
// its own CPU time so far (user + system, every thread, in µs: process.resourceUsage) to file
// descriptor 3, which the bench opened as a pipe. /proc's counters for a child tick in 10 ms steps,
// a quarter of Node's whole start-up; this is exact to the µs, and costs every process measured
// the same.
'use strict';
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const usage = process.resourceUsage();
  try {
    writeSync(3, `${usage.userCPUTime + usage.systemCPUTime}\n`);
  } catch {
    // Not started by the bench: nothing listens on fd 3.
  }
});
