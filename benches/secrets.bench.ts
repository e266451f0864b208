// Secret redaction as a user sees it, through the package's `redactSecrets`, run by hand
// (results in BENCHMARKS.md, "Secrets: recall and false positives").
//
//   node --import tsx benches/secrets.bench.ts recall [--n 1000]
//   node --import tsx benches/secrets.bench.ts fp DIR... [--show 40] [--addon PATH]
//
// recall: passwords and tokens placed in the forms real repositories hold them in (the same
//   forms and kinds as the Rust test `secrets::recall`, with seeds of its own); a value is
//   leaked when 6 or more of its characters in a row are still in the redacted text.
// fp: every non-test source file under the DIRs (test directories and files excluded, at most
//   1 MiB each), redacted file by file: lines counted, every redaction listed by kind and file
//   type with the redacted line (the marker stands where the value was; values are never
//   printed), findings per 100k lines, and the cost in ms per MB next to a reference in the same
//   run (a JavaScript scan of the same text for the keywords, /pass|secret|token|key/gi).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join, resolve } from 'node:path'
import { createRequire } from 'node:module'

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

const require = createRequire(join(process.cwd(), 'package.json'))
const addon = require(resolve(arg('addon', 'index.js')))
const redactSecrets: (text: string) => Promise<{ text: string; redactions: Array<{ kind: string; line: number }> }> =
  addon.redactSecrets

// ---- recall ---------------------------------------------------------------------------------

class Rng {
  s: bigint
  constructor(seed: number) {
    this.s = (BigInt(seed) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn
    this.s |= 1n
  }
  next(): bigint {
    const m = 0xffffffffffffffffn
    this.s ^= (this.s << 13n) & m
    this.s ^= this.s >> 7n
    this.s ^= (this.s << 17n) & m
    return this.s
  }
  below(n: number): number {
    return Number(this.next() % BigInt(n))
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.below(xs.length)]
  }
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
type Charset = 'Bare' | 'Quoted' | 'SingleQuoted' | 'Connection' | 'Url'
const SYMBOLS: Record<Charset, string> = {
  Bare: '!#%*+,-./:=?@^_~$',
  Quoted: "!#$%&'()*+,-./:;=?@[]^_{|}~`",
  SingleQuoted: '!#$%&"()*+,-./:;<=>?@[]^_{|}~',
  Connection: '!#$%*+,-./:=?@^_~',
  Url: '-._~!$*+,;=',
}
const PERSON_SYMBOLS: Record<Charset, string[]> = {
  Url: ['!', '*', '$', '~', '-', '_', '.'],
  Bare: ['!', '$', '#', '*', '?', '@', '%', '.'],
  Connection: ['!', '$', '#', '*', '?', '@', '%', '.'],
  Quoted: ['!', '$', '#', '*', '?', '@', '%', '&', '.'],
  SingleQuoted: ['!', '$', '#', '*', '?', '@', '%', '&', '.'],
}
const WORDS = `Falcon Maple Sunshine Dragon Monkey Shadow Summer Winter Autumn Spring Tiger Hunter Buster
Soccer Hockey Ranger Thunder Silver Orange Purple Yellow Cookie Pepper Ginger Banana Cherry Coffee
Chocolate Butterfly Princess Charlie Jordan Michael Jessica Ashley Daniel Andrew Thomas Robert
Matthew Jennifer London Paris Berlin Dallas Chelsea Arsenal Liverpool Yankees Phoenix Eagle Panther
Rocket Galaxy Planet Ocean River Forest Mountain Harbor Willow Cedar Aspen Birch Copper Marble Velvet
Crystal Diamond Emerald Garnet Jasper Onyx Raven Sparrow Robin Kitten Puppy Bailey Rocky Lucky Bella
Molly Daisy Oliver Leo Milo Zeus Apollo Athena Nova Orion Atlas Kansas Texas Denver Boston Austin`.split(/\s+/)

function randomValue(rng: Rng, cs: Charset): string {
  const len = 10 + rng.below(23)
  let s = ALNUM[rng.below(ALNUM.length)]
  for (let i = 1; i < len; i++) {
    s += rng.below(4) === 0 ? SYMBOLS[cs][rng.below(SYMBOLS[cs].length)] : ALNUM[rng.below(ALNUM.length)]
  }
  return s
}

function personValue(rng: Rng, cs: Charset): string {
  let word = rng.pick(WORDS)
  if (rng.below(3) === 0) word += rng.pick(WORDS)
  if (rng.below(3) === 0) word = word.toLowerCase()
  const d = rng.below(3)
  const digits = String(d === 0 ? 10 + rng.below(90) : d === 1 ? 1950 + rng.below(76) : 1000 + rng.below(9000))
  const sym = () => rng.pick(PERSON_SYMBOLS[cs])
  switch (rng.below(4)) {
    case 0: return word + digits
    case 1: return word + digits + sym()
    case 2: return word + sym() + digits
    default: return sym() + word + digits
  }
}

// [name, charset, password name?, template]
const FORMS: Array<[string, Charset, boolean, string]> = [
  ['.env `DB_PASSWORD=`', 'Bare', true, 'DB_HOST=db.internal\nDB_PASSWORD={v}\nDB_PORT=5432\n'],
  ['.env `API_KEY=`', 'Bare', false, 'APP_ENV=production\nSTRIPE_API_KEY={v}\n'],
  ['shell `export PGPASSWORD=`', 'Bare', true, '#!/bin/sh\nexport PGPASSWORD={v}\npsql -h db -U app\n'],
  ['shell `PGPASSWORD=… psql`', 'Bare', true, "PGPASSWORD={v} psql -h db -U app -c 'select 1'\n"],
  ['shell `export TOKEN=\"…\"`', 'Quoted', false, 'export GITEA_TOKEN=\"{v}\"\n'],
  ['Compose `- POSTGRES_PASSWORD=`', 'Bare', true, 'services:\n  db:\n    environment:\n      - POSTGRES_USER=app\n      - POSTGRES_PASSWORD={v}\n'],
  ['Compose `MYSQL_ROOT_PASSWORD: `', 'Bare', true, '    environment:\n      MYSQL_ROOT_PASSWORD: {v}\n'],
  ['Dockerfile `ENV`', 'Bare', true, 'FROM postgres:16\nENV POSTGRES_PASSWORD={v}\n'],
  ['YAML `password: `', 'Bare', true, 'database:\n  user: app\n  password: {v}\n  host: db\n'],
  ['YAML `api_token: `', 'Bare', false, 'slack:\n  api_token: {v}\n'],
  ['YAML `password: \"…\"`', 'Quoted', true, '  password: \"{v}\"\n'],
  ['Kubernetes `stringData:`', 'Bare', true, 'apiVersion: v1\nkind: Secret\nstringData:\n  db-password: {v}\n'],
  ['Kubernetes `stringData:` token', 'Bare', false, 'stringData:\n  client-secret: {v}\n'],
  ['.properties `x.password=`', 'Bare', true, 'spring.datasource.url=jdbc:postgresql://db/app\nspring.datasource.password={v}\n'],
  ['.properties `x.password: `', 'Bare', true, 'mail.smtp.password: {v}\n'],
  ['INI `password = `', 'Bare', true, '[client]\nuser = app\npassword = {v}\n'],
  ['INI `secret_key = `', 'Bare', false, '[auth]\nsecret_key = {v}\n'],
  ['TOML `password = \"…\"`', 'Quoted', true, '[database]\npassword = \"{v}\"\n'],
  ["TOML `token = '…'`", 'SingleQuoted', false, "[registry]\ntoken = '{v}'\n"],
  ['JSON `\"password\": \"…\"`', 'Quoted', true, '{\n  \"user\": \"app\",\n  \"password\": \"{v}\"\n}\n'],
  ['JSON `\"apiKey\": \"…\"`', 'Quoted', false, '{ \"apiKey\": \"{v}\", \"region\": \"eu\" }\n'],
  ['XML `<password>`', 'Quoted', true, '<server>\n  <username>deploy</username>\n  <password>{v}</password>\n</server>\n'],
  ['XML attribute `password=\"…\"`', 'Quoted', true, '<datasource user=\"app\" password=\"{v}\" />\n'],
  ['.NET `<add key=\"DbPassword\" value=…>`', 'Quoted', true, '<appSettings>\n  <add key=\"DbPassword\" value=\"{v}\" />\n</appSettings>\n'],
  ['connection string `Password=…;`', 'Connection', true, 'Server=db.internal;Database=app;User Id=app;Password={v};\n'],
  ['connection string `Pwd=…;` in code', 'Connection', true, 'var cs = \"Driver={SQL Server};Server=db;Uid=app;Pwd={v};\";\n'],
  ['connection string in XML attribute', 'Connection', true, '<add name=\"Db\" connectionString=\"Data Source=db;Initial Catalog=app;User ID=app;Password={v}\" />\n'],
  ['`mysql --password=`', 'Bare', true, 'mysql -h db -u root --password={v} app < dump.sql\n'],
  ['`--token …` flag', 'Bare', false, 'deploy --token {v} --env prod\n'],
  ['URL postgres', 'Url', true, 'DATABASE_URL=postgres://app:{v}@db.internal:5432/app\n'],
  ['URL mysql', 'Url', true, 'url = \"mysql://root:{v}@localhost:3306/shop\"\n'],
  ['URL mongodb', 'Url', true, 'MONGO_URI=mongodb+srv://admin:{v}@cluster0.example.net/app\n'],
  ['URL redis', 'Url', true, 'redis_url: redis://:{v}@cache:6379/0\n'],
  ['URL amqp', 'Url', true, "BROKER = 'amqp://worker:{v}@rabbit:5672//'\n"],
  ['Python `PASSWORD = \"…\"`', 'Quoted', true, 'import os\n\nDB_PASSWORD = \"{v}\"\n'],
  ["Python `connect(password='…')`", 'SingleQuoted', true, "conn = psycopg2.connect(host='db', user='app', password='{v}')\n"],
  ["Python `SECRET_KEY = '…'`", 'SingleQuoted', false, "SECRET_KEY = '{v}'\n"],
  ['JS `const apiKey = \"…\"`', 'Quoted', false, 'const apiKey = \"{v}\";\n'],
  ["JS `password: '…'`", 'SingleQuoted', true, "const config = {\n  user: 'app',\n  password: '{v}',\n};\n"],
  ['Go `Password: \"…\"`', 'Quoted', true, 'cfg := mysql.Config{\n\tUser:     \"app\",\n\tPassword: \"{v}\",\n}\n'],
  ['Go `token := \"…\"`', 'Quoted', false, '\ttoken := \"{v}\"\n'],
  ['Java `String PASSWORD = \"…\"`', 'Quoted', true, 'private static final String PASSWORD = \"{v}\";\n'],
  ['Java `setPassword(\"…\")`', 'Quoted', true, 'ds.setUser(\"app\");\nds.setPassword(\"{v}\");\n'],
  ['Rust `let password = \"…\"`', 'Quoted', true, 'let password = \"{v}\";\n'],
  ["Ruby `password: '…'`", 'SingleQuoted', true, "  config.smtp_settings = { user_name: 'app', password: '{v}' }\n"],
  ["PHP `$password = '…'`", 'SingleQuoted', true, "<?php\n$db_password = '{v}';\n"],
  ["PHP `define('DB_PASSWORD', '…')`", 'SingleQuoted', true, "define('DB_PASSWORD', '{v}');\n"],
  ['C# `Password = \"…\"`', 'Quoted', true, 'var cred = new NetworkCredential { UserName = \"app\", Password = \"{v}\" };\n'],
]

function leaked(value: string, text: string): boolean {
  if (value.length < 6) return text.includes(value)
  for (let i = 0; i + 6 <= value.length; i++) if (text.includes(value.slice(i, i + 6))) return true
  return false
}

async function recall(n: number): Promise<void> {
  console.log('| form | random 10-32 chars | a person\'s password |')
  console.log('| --- | ---: | ---: |')
  const total = { random: [0, 0], person: [0, 0] }
  for (let f = 0; f < FORMS.length; f++) {
    const [name, cs, password, template] = FORMS[f]
    const cells: string[] = []
    for (const kind of ['random', 'person'] as const) {
      if (kind === 'person' && !password) {
        cells.push('n/a')
        continue
      }
      let miss = 0
      for (let i = 0; i < n; i++) {
        const rng = new Rng(f * 104729 + i * 31 + (kind === 'person' ? 7 : 0) + 11)
        const v = kind === 'random' ? randomValue(rng, cs) : personValue(rng, cs)
        const r = await redactSecrets(template.split('{v}').join(v))
        if (leaked(v, r.text)) miss++
      }
      total[kind][0] += n
      total[kind][1] += miss
      cells.push(`${((100 * (n - miss)) / n).toFixed(2)}%`)
    }
    console.log(`| ${name} | ${cells.join(' | ')} |`)
  }
  const pct = ([a, m]: number[]) => ((100 * (a - m)) / a).toFixed(2)
  console.log(`| all forms | ${pct(total.random)}% of ${total.random[0]} | ${pct(total.person)}% of ${total.person[0]} |`)
}

// ---- false positives and cost ---------------------------------------------------------------

const SOURCE = new Set(
  `c h cc cpp hpp cs go java kt rs py rb php js mjs cjs ts tsx jsx swift scala sh bash zsh pl lua
  yaml yml toml ini cfg conf properties json xml env tf hcl gradle sql dockerfile`.split(/\s+/),
)
const TEST_DIR = /^(tests?|__tests__|testing|testdata|test_data|spec|specs|fixtures?|__fixtures__|mocks?|__mocks__|e2e|selftests|kunit|benchmarks?|examples?|samples?)$/i
const TEST_FILE = /(^test_|_test\.|\.test\.|\.spec\.|_spec\.|^tests?\.|[._-]tests?\.[a-z]+$|^conftest\.py$|fixtures?)/i
const SKIP_DIR = new Set(['.git', 'node_modules', 'target', 'vendor', 'dist', 'build', '.venv', 'venv', '__pycache__'])

function walk(dir: string, out: string[]): void {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  } catch {
    return
  }
  for (const e of entries) {
    const p = join(dir, e.name)
    if (e.isDirectory()) {
      if (!SKIP_DIR.has(e.name) && !TEST_DIR.test(e.name)) walk(p, out)
    } else if (e.isFile()) {
      const ext = extname(e.name).slice(1).toLowerCase() || e.name.toLowerCase()
      if ((SOURCE.has(ext) || e.name === 'Dockerfile' || e.name.startsWith('.env')) && !TEST_FILE.test(e.name)) out.push(p)
    }
  }
}

async function fp(dirs: string[], show: number): Promise<void> {
  const files: string[] = []
  for (const d of dirs) walk(resolve(d), files)
  let lines = 0
  let bytes = 0
  let redactMs = 0
  let refMs = 0
  let refHits = 0
  const byKind = new Map<string, number>()
  const byExt = new Map<string, number>()
  const shown: string[] = []
  let findings = 0
  for (const file of files) {
    let text: string
    try {
      if (statSync(file).size > 1 << 20) continue
      text = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    if (text.includes('\0')) continue
    bytes += Buffer.byteLength(text)
    let nl = 0
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) nl++
    lines += nl + (text.length > 0 && !text.endsWith('\n') ? 1 : 0)
    // Paired: the reference and redaction on the same text, alternating which goes first.
    const refFirst = findings % 2 === 0
    const ref = () => {
      const t0 = performance.now()
      refHits += (text.match(/pass|secret|token|key/gi) ?? []).length
      refMs += performance.now() - t0
    }
    if (refFirst) ref()
    const t0 = performance.now()
    const r = await redactSecrets(text)
    redactMs += performance.now() - t0
    if (!refFirst) ref()
    if (r.redactions.length === 0) continue
    const out = r.text.split('\n')
    const ext = extname(file).slice(1).toLowerCase() || 'none'
    for (const red of r.redactions) {
      findings++
      byKind.set(red.kind, (byKind.get(red.kind) ?? 0) + 1)
      byExt.set(ext, (byExt.get(ext) ?? 0) + 1)
      if (shown.length < show) shown.push(`${red.kind}\t${file}:${red.line}\t${(out[red.line - 1] ?? '').trim().slice(0, 140)}`)
    }
  }
  const mb = bytes / 1e6
  console.log(`files ${files.length}, non-test source lines ${lines}, ${mb.toFixed(1)} MB`)
  console.log(`findings ${findings} = ${((findings * 1e5) / Math.max(lines, 1)).toFixed(2)} per 100k lines`)
  console.log('by kind', JSON.stringify(Object.fromEntries([...byKind].sort())))
  console.log('by file type', JSON.stringify(Object.fromEntries([...byExt].sort())))
  console.log(`redactSecrets ${(redactMs / mb).toFixed(1)} ms per MB (await included); reference regex scan ${(refMs / mb).toFixed(1)} ms per MB (${refHits} keyword hits)`)
  for (const s of shown) console.log(s)
}

async function main(): Promise<void> {
  const mode = process.argv[2]
  if (mode === 'recall') {
    await recall(Number(arg('n', '1000')))
  } else if (mode === 'fp') {
    const rest = process.argv.slice(3)
    const dirs = rest.filter((a, i) => !a.startsWith('--') && !(i > 0 && rest[i - 1].startsWith('--')))
    await fp(dirs, Number(arg('show', '40')))
  } else {
    console.error('usage: secrets.bench.ts recall [--n N] | fp DIR... [--show N] [--addon PATH]')
    process.exit(2)
  }
}

void main()
