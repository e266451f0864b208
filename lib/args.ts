// The declared arguments of every export of the binding: name and type check of each parameter,
// in order (lib/schema.ts). Each list is checked by the compiler against the parameter types of
// the generated index.d.ts, so it cannot drift from the binding; the package entry (index.ts)
// checks every call against it before the binding converts the values.
//
// Sizes are bounded here, from `length` (free) before anything is copied: the largest text an
// export takes, and the smaller ones of the sync twins, which work on the JS thread.

import type { Binding } from './native.js'
import * as s from './schema.js'

type Engine = Binding.ContextEngine
type Fn = (...args: never[]) => unknown

/** Declared arguments of a method `M` of class `C`. */
type MethodArgs<C, M extends keyof C> = C[M] extends Fn ? s.Args<C[M]> : never

/** Largest text of `countTokensSync` and of all sections of `fitToBudgetSync` (exact BPE counts). */
const MAX_SYNC_COUNT_UNITS = 256 * 1024
/** Largest content of `truncateFileSync` (a copy and a line scan). */
const MAX_SYNC_TRUNCATE_UNITS = 1024 * 1024
/** Largest input of `composeContextSync`. */
const MAX_SYNC_COMPOSE_UNITS = 256 * 1024
/** Largest output `parseValidationOutputSync` parses (well under a millisecond). */
const MAX_SYNC_VALIDATION_BYTES = 64 * 1024
/** Most line numbers `truncateFile` takes. */
const MAX_AROUND_LINES = 100_000
/** Most sources `composeContext` takes. */
const MAX_SOURCES = 10_000
/** Most files one call hands in (`indexFiles`, `repoStats`), as the symbol index takes them. */
const MAX_FILES = 200_000
/** Most entries of the builders' lists (files, stages, errors, labels). */
const MAX_LIST = 100_000
/** Most names in a `repos` list. */
const MAX_REPOS = 10_000
/** Most directories in `allowedRoots`. */
const MAX_ALLOWED_ROOTS = 1024

/** A path of a directory or repository (at most 4 KiB; emptiness and existence are the engine's). */
const path = s.string(4096)
/** A path relative to a root, or a workspace path (at most 64 KiB). */
const longPath = s.string(64 * 1024)
const count = s.optional(s.number)
const flag = s.optional(s.boolean)
const signal = s.nullable(s.abortSignal)
const callOptions = s.optional(s.object<Binding.CallOptions>({ signal }))

// ---- tokens and budgets

const encodingName = s.oneOf(['o200k_base', 'cl100k_base'] as Binding.TokenEncoding[], "'o200k_base' or 'cl100k_base'")
const count_ = (max: number) =>
  [
    ['text', s.text(max)],
    ['encoding', s.nullable(encodingName)],
  ] as const
const truncate = (max: number) =>
  [
    ['content', s.text(max)],
    ['maxLines', s.number],
    ['aroundLines', s.nullable(s.array(s.number, 'an array of numbers', MAX_AROUND_LINES))],
    ['options', s.nullable(s.object<Binding.TruncateFileOptions>({ contextLines: count }))],
  ] as const
const fit = (max: number) =>
  [
    ['sections', s.textRecord(max)],
    ['budget', s.nullable(s.number)],
    [
      'options',
      s.nullable(
        s.object<Binding.FitToBudgetOptions>({ encoding: s.optional(encodingName), estimate: flag, minLines: count }),
      ),
    ],
  ] as const

// ---- context sources

const maxCharsOptions = s.optional(
  s.object<Binding.MaxCharsOptions & Binding.CallOptions>({ maxChars: count, redact: flag, signal }),
)
const compose = (max: number) =>
  [
    [
      'sources',
      s.array(
        s.object<Omit<Binding.ContextSource, 'redactions'> & { redactions?: Binding.Redaction[] }>({
          kind: s.oneOf(['dir', 'file', 'pr', 'diff'] as Binding.ContextSourceKind[], "'dir', 'file', 'pr' or 'diff'"),
          label: s.string(4096),
          content: s.text(max),
          truncated: s.withDefault(s.boolean, false),
          redactions: s.unread(),
        }),
        'an array of context sources',
        MAX_SOURCES,
        (source) => source.label.length + source.content.length,
        max,
      ),
    ],
    ['options', s.nullable(s.object<Binding.MaxCharsOptions>({ maxChars: count, redact: flag }))],
  ] as const

// ---- files handed in

const sourceFiles = s.array(
  s.object<Binding.SourceFileInput>({ path: s.string(), content: s.text() }),
  'an array of { path, content } objects',
  MAX_FILES,
  (f) => f.path.length + f.content.length,
)

// ---- builders

const builderOptions = s.optional(s.object<Binding.BuilderOptions & Binding.CallOptions>({ redact: flag, signal }))
const parsedError = s.object<Binding.ParsedError>({
  file: s.optional(s.string()),
  line: s.optional(s.whole(0, 2 ** 32 - 1)),
  column: s.optional(s.whole(0, 2 ** 32 - 1)),
  message: s.string(),
  severity: s.withDefault(
    s.oneOf(['error', 'warning', 'note'] as Binding.ErrorSeverity[], "'error', 'warning' or 'note'"),
    'error',
  ),
  tool: s.optional(s.string()),
  code: s.optional(s.string()),
})
const validationOutput = s.either(
  'a string or an object with a stages array',
  s.text(),
  s.object<Binding.ValidationOutput>({
    stages: s.array(
      s.object<Binding.ValidationStage>({
        name: s.optional(s.string()),
        passed: flag,
        errors: s.optional(s.array(parsedError, 'an array', MAX_LIST)),
        output: s.optional(s.string()),
      }),
      'an array',
      MAX_LIST,
    ),
  }),
)
/** GitHub's labels or assignees: names, or objects with the name under `key`; passed on as names. */
function names<K extends string>(key: K) {
  const what = `an array of strings or of objects with a string ${key}`
  const entry = s.either(
    what,
    s.string(),
    s.object<Record<K, string>>({ [key]: s.string() } as s.Fields<Record<K, string>>),
  )
  return s.optional(
    s.mapped(s.array(entry, what, MAX_LIST), (list) => list.map((e) => (typeof e === 'string' ? e : e[key]))),
  )
}

// ---- remote

const hostConfig = s.nullable(
  s.object<Binding.GiteaClientConfig>({
    baseUrl: s.optional(s.string()),
    token: s.optional(s.string()),
    timeout: count,
    maxBytes: count,
  }),
)
const repos = s.optional(
  s.either('a string or an array of strings', s.string(), s.array(s.string(), 'an array of strings', MAX_REPOS)),
)
const rawFile = [
  ['repo', path],
  ['filepath', longPath],
  ['ref', s.nullable(s.string())],
  ['options', callOptions],
] as const

// ---- the engine's operations (module-level functions on the default engine, and methods)

/** Most roots one retrieval takes (`rootPaths`). */
const MAX_ROOTS_PER_CALL = 64
/** The fields both kinds of retrieval request share. */
const requestFields = {
  prompt: s.string(256 * 1024),
  spaceId: s.string(1024),
  sessionId: s.string(1024),
  providerId: s.oneOf(['filesystem', 'mcp'] as Binding.ContextProviderId[], "'filesystem' or 'mcp'"),
  limit: count,
  explain: flag,
  redact: flag,
}

const engine = {
  expandChunk: expand(),
  expandChunkDetailed: expand(),
  clearFileCache: [],
  invalidateFile: [['path', longPath]],
  invalidateDirectory: [['path', longPath]],
  fileCacheStats: [],
  watchWorkspace: [['workspacePath', longPath]],
  unwatchWorkspace: [['workspacePath', longPath]],
  retrieve: [
    [
      'request',
      s.byKey(
        'rootPath',
        s.object<Binding.ContextRetrievalRequest>({ ...requestFields, rootPath: longPath, rootPaths: s.unread() }),
        'rootPaths',
        s.object<Binding.MultiRootRetrievalRequest>({
          ...requestFields,
          rootPaths: s.array(longPath, 'an array of strings', MAX_ROOTS_PER_CALL),
          rootPath: s.unread(),
        }),
        'must have exactly one of rootPath (a root) and rootPaths (an array of roots)',
      ),
    ],
    ['options', callOptions],
  ],
  indexStatus: [['rootPath', longPath]],
  prepareIndex: [
    ['rootPath', longPath],
    ['options', callOptions],
  ],
  fileRanks: [
    ['rootPath', longPath],
    [
      'options',
      s.optional(
        s.object<Binding.FileRanksOptions & Binding.CallOptions>({
          limit: count,
          path: s.optional(s.string()),
          signal,
        }),
      ),
    ],
  ],
  evict: [['rootPath', longPath]],
} satisfies { [M in keyof Engine]: MethodArgs<Engine, M> }

function expand() {
  return [
    ['workspacePath', longPath],
    [
      'chunk',
      s.object<Binding.TextChunk | Binding.KnowledgeChunk>({
        content: s.text(),
        filePath: longPath,
        startLine: s.number,
        endLine: s.number,
        language: s.optional(s.string()),
      }),
    ],
    ['contextLines', s.number],
    [
      'options',
      s.optional(
        s.object<Binding.ExpandChunkOptions & Binding.CallOptions>({
          mode: s.optional(s.oneOf(['lines', 'structure'], "'lines' or 'structure'")),
          maxLines: count,
          redact: flag,
          signal,
        }),
      ),
    ],
  ] as const
}

/** The declared arguments of each module-level function of the binding. */
export const functions = {
  ...engine,
  estimateTokens: [['text', s.text()]],
  countTokens: count_(s.MAX_TEXT_UNITS),
  countTokensSync: count_(MAX_SYNC_COUNT_UNITS),
  truncateFile: truncate(s.MAX_TEXT_UNITS),
  truncateFileDetailed: truncate(s.MAX_TEXT_UNITS),
  truncateFileSync: truncate(MAX_SYNC_TRUNCATE_UNITS),
  fitToBudget: fit(s.MAX_TEXT_UNITS),
  fitToBudgetSync: fit(MAX_SYNC_COUNT_UNITS),
  redactSecrets: [['text', s.text()]],
  dirContext: [
    ['path', path],
    [
      'options',
      s.optional(
        s.object<Binding.DirContextOptions & Binding.CallOptions>({
          maxFiles: count,
          maxChars: count,
          redact: flag,
          signal,
        }),
      ),
    ],
  ],
  fileContext: [
    ['path', longPath],
    [
      'options',
      s.optional(
        s.object<Binding.FileContextOptions & Binding.CallOptions>({
          root: s.optional(path),
          maxLines: count,
          maxChars: count,
          redact: flag,
          signal,
        }),
      ),
    ],
  ],
  diffContext: [
    ['repoPath', path],
    ['options', maxCharsOptions],
  ],
  prContext: [
    ['repoPath', path],
    ['pr', s.either('a pull request number, URL or branch name', s.number, s.string())],
    ['options', maxCharsOptions],
  ],
  composeContext: compose(s.MAX_TEXT_UNITS),
  composeContextSync: compose(MAX_SYNC_COMPOSE_UNITS),
  repoStats: [
    [
      'input',
      // Declared `{ root } | { files }`; the binding's struct has both fields, and says which of
      // the two is wrong when both or neither are given.
      s.object<Binding.RepoStatsInput>({ root: s.optional(s.string()), files: s.optional(sourceFiles) }) as s.Check<
        { root: string } | { files: Binding.SourceFileInput[] }
      >,
    ],
  ],
  languages: [],
  buildImplementationContext: [
    ['taskFile', path],
    ['repoPath', path],
    ['options', builderOptions],
  ],
  buildReviewContext: [
    ['repoPath', path],
    ['baseBranch', path],
    ['options', builderOptions],
  ],
  buildFixContext: [
    ['validationOutput', validationOutput],
    ['files', s.array(s.string(), 'an array of strings', MAX_LIST)],
    ['repoPath', s.nullable(path)],
    ['options', builderOptions],
  ],
  buildIssueContext: [
    [
      'issue',
      s.object<Binding.GitHubIssue>({
        number: s.number,
        title: s.string(),
        body: s.nullable(s.string()),
        labels: names('name'),
        state: s.optional(s.string()),
        assignees: names('login'),
        url: s.optional(s.string()),
      }),
    ],
    ['repoPath', path],
    ['options', builderOptions],
  ],
  parseValidationOutput: [['text', s.text()]],
  parseValidationOutputSync: [['text', s.string(MAX_SYNC_VALIDATION_BYTES)]],
  remoteFileContext: [
    [
      'request',
      s.object<Binding.FileContextRequest>({
        repo: s.string(),
        file: s.string(),
        line: s.number,
        context: count,
        ref: s.optional(s.string()),
      }),
    ],
    [
      'config',
      s.optional(
        s.object<Binding.RemoteFileContextConfig & Binding.CallOptions>({
          baseUrl: s.optional(s.string()),
          token: s.optional(s.string()),
          timeout: count,
          maxBytes: count,
          houndUrl: s.optional(s.string()),
          houndTimeout: count,
          fallback: flag,
          provider: s.optional(s.oneOf(['gitea', 'github'], "'gitea' or 'github'")),
          signal,
        }),
      ),
    ],
  ],
} satisfies {
  [F in Exclude<keyof typeof Binding, 'cancelToken' | 'cancelCall'> as (typeof Binding)[F] extends Fn
    ? F extends Capitalize<F>
      ? never
      : F
    : never]: (typeof Binding)[F] extends Fn ? s.Args<(typeof Binding)[F]> : never
}

/** The declared options of each class's constructor, and arguments of each of its methods. */
export const classes = {
  ContextEngine: {
    options: s.nullable(
      s.object<Binding.ContextEngineOptions>({
        fileCache: s.optional(
          s.object<Binding.FileCacheOptions>({ maxFiles: count, maxFileLines: count, maxBytes: count, ttlMs: count }),
        ),
        watch: flag,
        maxRoots: count,
        maxFilesPerRoot: count,
        indexCacheDir: s.optional(s.string(64 * 1024)),
        allowedRoots: s.optional(s.array(longPath, 'an array of strings', MAX_ALLOWED_ROOTS)),
        timeoutMs: count,
        maxIndexBytes: count,
      }),
    ),
    methods: engine,
  },
  GiteaClient: {
    options: hostConfig,
    methods: { getRawFile: rawFile } satisfies { getRawFile: MethodArgs<Binding.GiteaClient, 'getRawFile'> },
  },
  GitHubClient: {
    options: s.nullable(
      s.object<Binding.GitHubClientConfig>({
        baseUrl: s.optional(s.string()),
        token: s.optional(s.string()),
        timeout: count,
        maxBytes: count,
      }),
    ),
    methods: { getRawFile: rawFile } satisfies { getRawFile: MethodArgs<Binding.GitHubClient, 'getRawFile'> },
  },
  HoundClient: {
    options: s.nullable(
      s.object<Binding.HoundClientConfig>({ baseUrl: s.optional(s.string()), timeout: count, maxBytes: count }),
    ),
    methods: {
      search: [
        ['query', s.string()],
        [
          'options',
          s.optional(
            s.object<Binding.HoundSearchOptions & Binding.CallOptions>({
              repos,
              files: s.optional(s.string()),
              excludeFiles: s.optional(s.string()),
              ignoreCase: flag,
              literal: flag,
              context: count,
              limit: count,
              rng: s.optional(s.object<Binding.HoundPaging>({ offset: count, limit: count })),
              stats: flag,
              signal,
            }),
          ),
        ],
      ],
      repos: [['options', callOptions]],
      repoKey: [['ownerRepo', s.string()]],
      repoName: [['key', s.string()]],
      excludes: [
        ['repo', path],
        ['options', callOptions],
      ],
    } satisfies { [M in Exclude<keyof Binding.HoundClient, 'baseUrl'>]: MethodArgs<Binding.HoundClient, M> },
  },
  SymbolIndex: {
    options: s.nullable(
      s.object<Binding.SymbolIndexOptions>({
        urlTemplate: s.optional(s.string()),
        cacheDir: s.optional(s.string()),
        threads: count,
      }),
    ),
    methods: {
      indexFiles: files(),
      updateFiles: files(),
      indexRoot: [
        ['repo', s.string()],
        ['rootPath', s.string()],
        ['options', callOptions],
      ],
      search: [
        [
          'query',
          s.object<Binding.SymbolSearchQuery>({
            name: s.string(),
            kind: s.optional(symbolKind()),
            language: s.optional(s.string()),
            repos,
            limit: count,
            offset: count,
          }),
        ],
      ],
      flush: [],
      removeRepo: [['repo', s.string()]],
      repos: [],
    } satisfies { [M in keyof Binding.SymbolIndex]: MethodArgs<Binding.SymbolIndex, M> },
  },
}

function files() {
  return [
    ['repo', s.string()],
    ['files', sourceFiles],
    ['options', callOptions],
  ] as const
}

function symbolKind() {
  const kinds = ['function', 'class', 'method', 'interface', 'type', 'variable', 'constant', 'module'] as const
  return s.oneOf(kinds, `one of ${kinds.join(', ')}`)
}
