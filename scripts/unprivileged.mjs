// Runs a command (the JS test suite) without the privilege to bypass file permissions, so that
// tests which lock a file with mode 000 really see it refused, even when run as root (CI,
// containers): on Linux as root, through util-linux's `setpriv`, with CAP_DAC_OVERRIDE and
// CAP_DAC_READ_SEARCH removed from the bounding set (the process stays root and owns its files;
// only reading what the mode forbids is refused). Elsewhere, or as an ordinary user, the command
// runs as it is. __test__/support/permissions.ts fails a test that can still read what it locked.
//
//   node scripts/unprivileged.mjs COMMAND [ARGS...]
import { spawnSync } from 'node:child_process'

const [command, ...args] = process.argv.slice(2)
if (!command) {
  console.error('usage: node scripts/unprivileged.mjs COMMAND [ARGS...]')
  process.exit(2)
}

let argv = [command, ...args]
if (process.platform === 'linux' && process.getuid?.() === 0) {
  const probe = spawnSync('setpriv', ['--version'], { stdio: 'ignore' })
  if (probe.status === 0) {
    const drop = '-dac_override,-dac_read_search'
    argv = ['setpriv', `--inh-caps=${drop}`, `--bounding-set=${drop}`, '--', ...argv]
  } else {
    console.error('note: setpriv (util-linux) not found: the tests run with root\'s file access')
  }
}
const run = spawnSync(argv[0], argv.slice(1), { stdio: 'inherit', shell: process.platform === 'win32' })
if (run.error) {
  console.error(`could not run ${argv[0]}: ${run.error.message}`)
  process.exit(1)
}
process.exit(run.status ?? 1)
