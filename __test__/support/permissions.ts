// Permission tests that really assert. A file or directory with mode 000 is unreadable to
// everyone but a process that may bypass file permissions (root, with CAP_DAC_OVERRIDE and
// CAP_DAC_READ_SEARCH). `npm run test:js` runs the suite through scripts/unprivileged.mjs, which
// drops those two capabilities on Linux, so the kernel refuses as it would an ordinary user even
// when the tests run as root (CI, containers). If a test still can read what it locked, it fails
// with an explanation, unless CONTEXT_ENGINE_TEST_ALLOW_PRIVILEGED=1 says the run knowingly
// cannot make the assertion.
import { readFileSync, readdirSync, statSync } from 'node:fs'

export const ALLOW_PRIVILEGED = 'CONTEXT_ENGINE_TEST_ALLOW_PRIVILEGED'

/** Whether the permission assertions about `locked` (just made mode 000) can be made. */
export function permissionsEnforced(locked: string): boolean {
  if (process.platform === 'win32') return false // no POSIX modes to lock with
  let readable = true
  try {
    if (statSync(locked).isDirectory()) readdirSync(locked)
    else readFileSync(locked)
  } catch {
    readable = false
  }
  if (!readable) return true
  if (process.env[ALLOW_PRIVILEGED] === '1') {
    console.log(`note: ${ALLOW_PRIVILEGED}=1: skipping a permission assertion`)
    return false
  }
  throw new Error(
    `${locked} is mode 000 yet readable: this process bypasses file permissions, so the permission ` +
      `assertions cannot be made. Run the tests through \`npm run test:js\` (which drops that ` +
      `privilege on Linux), as an ordinary user, or set ${ALLOW_PRIVILEGED}=1 to skip them knowingly.`,
  )
}
