// `redactSecrets`: the engine's redaction for text it did not read itself (used by the MCP
// server on builder sections and Hound results before they reach a model).
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { redactSecrets } from '../lib/index.js'

/** Made-up credentials in the shapes the rules know. */
const GITHUB = 'ghp_R8sK2mQ9vX4tL7wN1pZ6cB3yH5jF0dG8eA2u'
const AWS = 'AKIAQ3EGRV5XNTWJ7KPZ'

test('redactSecrets replaces secrets, keeps the rest of each line and every line break', async () => {
  const text = `const a = 1\nconst token = "${GITHUB}"\nconst key = '${AWS}'\nconst b = 2\n`
  const r = await redactSecrets(text)
  assert.deepEqual(r.redactions.map((x) => x.line), [2, 3])
  assert.ok(!JSON.stringify(r.redactions).includes(GITHUB))
  assert.ok(!r.text.includes(GITHUB) && !r.text.includes(AWS))
  assert.equal(r.text.split('\n').length, text.split('\n').length)
  assert.match(r.text, /^const a = 1\nconst token = "\[REDACTED:[a-z_]+\]"\n/)
  assert.ok(r.text.endsWith('const b = 2\n'))
  const again = await redactSecrets(r.text)
  assert.deepEqual(again, { text: r.text, redactions: [] })
})

test('redactSecrets leaves text without secrets unchanged', async () => {
  const text = 'export function add(a: number, b: number) {\n  return a + b\n}\n'
  assert.deepEqual(await redactSecrets(text), { text, redactions: [] })
  assert.deepEqual(await redactSecrets(''), { text: '', redactions: [] })
})

test('redactSecrets rejects a non-string with invalid_request', async () => {
  for (const bad of [undefined, null, 42, { text: 'x' }]) {
    await assert.rejects(redactSecrets(bad as unknown as string), (e: any) => e.code === 'invalid_request' && /text/.test(e.message))
  }
})

test('redactSecrets takes any value under a secret name, in every common form, whole', async () => {
  // Made-up passwords as people choose them, and one with the characters that used to cut it.
  for (const value of ['Falcon5065', 'Maple83$', 'ab.cd-ef=gh:ij']) {
    const forms = [
      `DB_PASSWORD=${value}\n`,
      `export PGPASSWORD=${value}\n`,
      `      - POSTGRES_PASSWORD=${value}\n`,
      `stringData:\n  db-password: ${value}\n`,
      `spring.datasource.password=${value}\n`,
      `[client]\npassword = ${value}\n`,
      `<password>${value}</password>\n`,
      `Server=db;Database=app;User Id=app;Password=${value};\n`,
      `mysql -u root --password=${value} app\n`,
      `DB_PASSWORD = "${value}"\n`,
      `{ "password": "${value}" }\n`,
      `<datasource password="${value}" />\n`,
      `ds.setPassword("${value}");\n`,
    ]
    for (const text of forms) {
      const r = await redactSecrets(text)
      assert.deepEqual(r.redactions.map((x) => x.kind), ['generic_secret'], text)
      assert.ok(!r.text.includes(value), `${text} -> ${r.text}`)
      assert.ok(!JSON.stringify(r.redactions).includes(value))
    }
  }
  const r = await redactSecrets('Password=ab.cd-ef=gh;Timeout=30\n')
  assert.equal(r.text, 'Password=[REDACTED:generic_secret];Timeout=30\n')
})

test('redactSecrets leaves whole-value placeholders and references under secret names alone', async () => {
  for (const value of ['changeme', 'password', '${DB_PASSWORD}', '$DB_PASSWORD', '<password>', 'xxxxxxxx', '%(password)s']) {
    for (const text of [`DB_PASSWORD=${value}\n`, `password = "${value}"\n`]) {
      const r = await redactSecrets(text)
      assert.deepEqual(r, { text, redactions: [] }, text)
    }
  }
  const code = 'token = next_token\npassword = os.environ["DB_PASSWORD"]\nconst secret = process.env.SECRET\nauth = getAuth()\n'
  assert.deepEqual(await redactSecrets(code), { text: code, redactions: [] })
})
