// Builds the test addon: a debug build of the binding with the `diagnostics` feature, whose
// extra exports (`__raiseErrorSync`, `__raiseErrorAsync`) let __test__/errors.spec.ts prove every
// error code end to end. The published addon (`npm run build`) never contains them.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
execFileSync('cargo', ['build', '--locked', '-p', 'context-engine', '--features', 'diagnostics'], {
  cwd: root,
  stdio: 'inherit',
})
const built =
  process.platform === 'win32'
    ? 'context_engine.dll'
    : process.platform === 'darwin'
      ? 'libcontext_engine.dylib'
      : 'libcontext_engine.so'
const out = join(root, 'target', 'test-addon')
mkdirSync(out, { recursive: true })
copyFileSync(join(root, 'target', 'debug', built), join(out, 'context-engine.node'))
