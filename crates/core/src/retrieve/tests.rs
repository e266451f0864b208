//! Tests of retrieval over real temporary trees.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use super::*;

const EXPLAIN: SnippetOptions = SnippetOptions {
    explain: true,
    redact: true,
};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/router.ts",
        "/** Routes requests to handlers. */\nexport class Router {\n  add(method: string, path: string, handler: Handler) {\n    this.routes.push({ method, path, handler })\n  }\n\n  match(method: string, path: string): Handler | undefined {\n    return this.routes.find((r) => r.method === method && r.path === path)?.handler\n  }\n}\n",
    );
    write(
        r,
        "src/cookie.ts",
        "export function parseCookie(header: string): Record<string, string> {\n  const out: Record<string, string> = {}\n  for (const part of header.split(';')) {\n    const [k, v] = part.split('=')\n    out[k.trim()] = decodeURIComponent(v ?? '')\n  }\n  return out\n}\n",
    );
    write(
        r,
        "src/utils/url.ts",
        "export const getPath = (request: Request): string => {\n  const url = request.url\n  const start = url.indexOf('/', 8)\n  return url.slice(start)\n}\n",
    );
    write(
        r,
        "README.md",
        "# Demo\n\nA tiny web framework with a router and cookie helpers.\n",
    );
    write(r, "package-lock.json", "{\"router\": \"router cookie\"}\n");
    write(
        r,
        "node_modules/x/index.js",
        "export function parseCookie() {}\n",
    );
    write(r, ".gitignore", "ignored.ts\n");
    write(r, "ignored.ts", "export function parseCookie() {}\n");
    dir
}

/// Each snippet's path, first line and score, in rank order.
fn shown(out: &[Snippet]) -> Vec<(&str, u32, f64)> {
    out.iter()
        .map(|s| (s.path.as_str(), s.start_line, s.score))
        .collect()
}

fn request(root: &Path, prompt: &str, limit: usize) -> Request {
    Request {
        prompt: prompt.to_owned(),
        root: root.to_str().unwrap().to_owned(),
        limit,
    }
}

#[test]
fn ranks_the_defining_file_first() {
    let dir = fixture();
    let r = Retrieval::default();
    let out = r
        .retrieve(&request(dir.path(), "cookie header parsing is broken", 10))
        .unwrap();
    assert_eq!(out[0].path, "src/cookie.ts");
    assert!(out.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(out.iter().all(|s| s.score.is_finite() && s.score > 0.0));
    let out = r
        .retrieve(&request(dir.path(), "add a route to `Router`", 10))
        .unwrap();
    assert_eq!(out[0].path, "src/router.ts");
    assert_eq!(out[0].start_line, 1);
    assert!(out[0].content.contains("export class Router"));
    assert_eq!(
        out[0].source,
        format!("src/router.ts:1-{}", out[0].end_line)
    );
    assert_eq!(out[0].language, Some("typescript"));
}

#[test]
fn a_word_meets_the_path_part_it_is_made_from() {
    // No path holds "connection" or "utility": the files named after their stems, `connect`
    // and `util`, answer, over files whose text only repeats the words.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "lib/connect.c",
        "int open_socket(struct host *h) {\n  return dial(h->name, h->port);\n}\n\nint reuse(struct conn *c) {\n  return c->alive;\n}\n",
    );
    write(
        r,
        "lib/filter.c",
        "/* the filter chain of a connection */\nint filter_chain(struct filter *f) {\n  return f->next != 0;\n}\n",
    );
    write(
        r,
        "lib/strings/util.c",
        "char *trim(char *s) {\n  while (*s == ' ') s++;\n  return s;\n}\n",
    );
    write(
        r,
        "lib/strings/text.c",
        "/* a utility */\nint text_len(const char *s) {\n  return strlen(s);\n}\n",
    );
    let ret = Retrieval::default();
    let first = |prompt: &str| {
        ret.retrieve(&request(r, prompt, 10)).unwrap()[0]
            .path
            .clone()
    };
    assert_eq!(first("how a connection is set up"), "lib/connect.c");
    assert_eq!(first("utility for strings"), "lib/strings/util.c");
}

#[test]
fn a_prompt_word_meets_the_file_named_after_its_agent() {
    // "matching" is in no path: the matcher is named after what it does, and answers over
    // files whose text repeats the prompt's words.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/matcher.go",
        "package fzf\n\n// Matcher runs a search over the items in slices.\nfunc (m *Matcher) scan(request MatchRequest) {\n\tslices := m.sliceItems(request.chunks)\n\tfor _, s := range slices {\n\t\tgo m.run(s)\n\t}\n}\n",
    );
    write(
        r,
        "src/terminal.go",
        "package fzf\n\n// The terminal shows the matching items, split into chunks, as they arrive.\nfunc (t *Terminal) printMatches(chunks []Chunk) {\n\tfor _, c := range chunks {\n\t\tt.print(c)\n\t}\n}\n",
    );
    write(
        r,
        "src/pattern.go",
        "package fzf\n\n// matching a pattern against the chunks\nfunc (p *Pattern) Match(chunk *Chunk) []Result {\n\treturn p.matchChunk(chunk)\n}\n",
    );
    let out = Retrieval::default()
        .retrieve(&request(r, "how matching is split into chunks and run", 10))
        .unwrap();
    assert_eq!(out[0].path, "src/matcher.go", "{out:?}");
}

#[test]
fn a_word_some_path_holds_still_meets_the_folder_named_after_its_agent() {
    // "validated" is in a path as it is (`validate_call.py`), yet the checks live under
    // `validators/`: the agent's folder lifts its files over two that merely share words.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "pkg/validators/fields.rs",
        "// Fields of a record: each value is checked in turn.\nfn fields(input: &Input, errors: &mut Vec<Error>) {\n    for field in &self.fields {\n        match field.lookup(input) {\n            Some(value) => out.push(value),\n            None => errors.push(Error::missing(field)),\n        }\n    }\n}\n",
    );
    write(r, "pkg/validate_call.py", "def wrap(fn):\n    return fn\n");
    write(
        r,
        "pkg/report.rs",
        "// Reports the errors of a run, with the missing ones counted.\nfn report(errors: &[Error], run: &Run) {\n    for e in errors {\n        println!(\"{e}: {} missing\", run.count);\n    }\n}\n",
    );
    write(
        r,
        "pkg/cache.rs",
        "// Keeps data that was already read.\nfn keep(data: Data) { store(data) }\n",
    );
    let first = |prompt: &str| {
        let out = Retrieval::default()
            .retrieve(&request(r, prompt, 10))
            .unwrap();
        out[0].path.clone()
    };
    assert_eq!(
        first("Handle missing errors in validated data"),
        "pkg/validators/fields.rs"
    );
    // A longer prompt keeps the rule for words no path holds only.
    assert_ne!(
        first("Handle missing errors in validated data\n\nThe run counts them."),
        "pkg/validators/fields.rs"
    );
}

#[test]
fn the_subject_of_a_question_names_its_file_over_a_modifier() {
    // "task state and task result tracking" asks about tasks: `state.ts`, named after the
    // word that modifies the subject, held the state of everything and ranked first.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/node/state.ts",
        "// Tracks the state of the run: each task's state and result.\nexport class StateManager {\n  \
         state = new Map()\n  getState(id: string) { return this.state.get(id) }\n  \
         updateTask(task: Task) { this.state.set(task.id, task.result) }\n}\n",
    );
    write(
        r,
        "src/utils/tasks.ts",
        "// Walks the tasks of a suite and reads their results.\nexport function getTests(task: Task) \
         {\n  return task.tasks.flatMap(getTests)\n}\nexport function hasFailed(task: Task) {\n  \
         return task.result?.state === 'fail'\n}\nexport function resultOf(task: Task) \
         { return task.result }\n",
    );
    write(
        r,
        "src/node/reporters/summary.ts",
        "// Prints the summary of the run.\nexport function printSummary(files: File[]) {\n  \
         for (const f of files) console.log(f.name, f.result)\n}\n",
    );
    let ret = Retrieval::default();
    let out = explained(&ret, r, "task state and task result tracking");
    assert_eq!(files(&out)[0], "src/utils/tasks.ts", "{out:?}");
    let state = signals_of(&out, "src/node/state.ts");
    assert!(state.modifier_stem && state.mention == 0.0, "{state:?}");
    assert!(signals_of(&out, "src/utils/tasks.ts").mention > 0.0);
    // Without a file named after the subject, the modifier's file keeps its mention.
    let out = explained(&ret, r, "tracking the state of a run");
    let state = signals_of(&out, "src/node/state.ts");
    assert!(!state.modifier_stem && state.mention > 0.0, "{state:?}");
}

#[test]
fn a_question_opening_with_a_word_for_a_role_takes_the_next_word_as_its_subject() {
    // "test reporter interface ..." asks about reporters: "test" asks for a kind of file,
    // and the subject is the word after it, which names `reporters.ts` in the plural; the
    // files named after the question's other words (`results.ts`) lose their mention.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/public/reporters.ts",
        "// The reporter interface: hooks called on test events.\nexport interface Reporter {\n  \
         onTestStart(test: Test): void\n  onTestEnd(test: Test, result: Result): void\n}\n",
    );
    write(
        r,
        "src/node/cache/results.ts",
        "// Caches the results of each test run and listens to test events and results.\n\
         export class ResultsCache {\n  results = new Map()\n  onTestEnd(test: Test, result: \
         Result) { this.results.set(test.id, result) }\n  listening = true\n}\n",
    );
    write(
        r,
        "src/node/pool.ts",
        "// Runs test files in workers.\nexport function createPool() { return [] }\n",
    );
    let ret = Retrieval::default();
    let out = explained(
        &ret,
        r,
        "test reporter interface for listening to test events and results",
    );
    assert_eq!(files(&out)[0], "src/public/reporters.ts", "{out:?}");
    assert!(signals_of(&out, "src/public/reporters.ts").mention > 0.0);
    let results = signals_of(&out, "src/node/cache/results.ts");
    assert!(
        results.modifier_stem && results.mention == 0.0,
        "{results:?}"
    );
}

#[test]
fn a_question_whose_agent_is_the_project_names_no_file_by_it() {
    // "how zls traverses the AST" asks about the code of zls, not about `zls.zig`, the module
    // that re-exports the others (and names the project in each of them).
    let dir = tempfile::tempdir().unwrap();
    for project in ["zls", "tool"] {
        let r = dir.path().join(project).join("src");
        write(
            &r,
            "zls.zig",
            "//! zls: the Zig language server. Re-exports its modules.\n\
             pub const ast = @import(\"ast.zig\");\npub const analysis = \
             @import(\"analysis.zig\");\npub const Server = @import(\"Server.zig\");\n",
        );
        write(
            &r,
            "ast.zig",
            "//! Walks the syntax tree of a document.\n\
             pub fn iterateChildren(tree: Ast, node: Node, callback: anytype) void {\n    \
             for (tree.children(node)) |child| callback(child);\n}\n\
             pub fn traverseScopes(tree: Ast) void {\n    iterateChildren(tree, 0, visit);\n}\n",
        );
        write(
            &r,
            "analysis.zig",
            "//! Resolves the type of a declaration.\n\
             pub fn resolveType(decl: Decl) ?Type {\n    return decl.type;\n}\n",
        );
        let ret = Retrieval::default();
        let out = explained(
            &ret,
            &r,
            "how zls traverses the Zig AST to resolve symbol scopes",
        );
        let named = signals_of(&out, "zls.zig");
        if project == "zls" {
            // The root is `zls/src`: a code folder takes the project's name from the one above.
            assert_eq!(files(&out)[0], "ast.zig", "{out:?}");
            assert!(named.project_stem && named.mention == 0.0, "{named:?}");
            // Named elsewhere than right after the question word, the file keeps its mention.
            let out = explained(&ret, &r, "what the zls module re-exports");
            let named = signals_of(&out, "zls.zig");
            assert!(!named.project_stem && named.mention > 0.0, "{named:?}");
        } else {
            assert!(!named.project_stem && named.mention > 0.0, "{named:?}");
        }
    }
}

#[test]
fn a_question_whose_agent_is_the_project_names_files_by_its_action() {
    // "how curl resolves and connects to a remote host": the project's name names no file,
    // and what it does (`connects`) names the file that does it (`connect.c`), over a file
    // that repeats the question's words. The agent may be the first part of the project's
    // name (`curl` of `curl-lib`); a project of another name leaves the words as they are.
    let dir = tempfile::tempdir().unwrap();
    for project in ["curl", "curl-lib", "tool"] {
        let r = dir.path().join(project).join("lib");
        write(
            &r,
            "connect.c",
            "/* Sets up the filters of a transfer to its remote host. */\n\
             CURLcode Curl_conn_setup(struct Curl_easy *data, int sockindex) {\n  \
             return cf_setup_add(data, sockindex);\n}\n",
        );
        write(
            &r,
            "socket.c",
            "/* A socket: resolves the host name and connects to it. */\n\
             CURLcode cf_socket_open(struct Curl_cfilter *cf, struct Curl_easy *data) {\n  \
             return socket_open(data, cf->remote_host);\n}\n",
        );
        write(
            &r,
            "transfer.c",
            "/* Sends and receives the data of a transfer. */\n\
             CURLcode Curl_xfer_send(struct Curl_easy *data) {\n  return CURLE_OK;\n}\n",
        );
        let ret = Retrieval::default();
        let out = explained(&ret, &r, "how curl resolves and connects to a remote host");
        let named = signals_of(&out, "connect.c");
        if project == "tool" {
            assert_eq!(files(&out)[0], "socket.c", "{out:?}");
            assert!(!named.action_stem && named.mention == 0.0, "{named:?}");
        } else {
            assert_eq!(files(&out)[0], "connect.c", "{project}: {out:?}");
            assert!(named.action_stem && named.mention > 0.0, "{named:?}");
        }
    }
}

#[test]
fn a_file_named_after_a_word_of_the_complement_counts_less_of_a_mention() {
    // "number parsing with defaults and range checks" asks about parsing numbers; `Range.java`
    // is named after a word that follows the preposition, which completes the question.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/math/NumberUtils.java",
        "/** Number parsing helpers. */\npublic class NumberUtils {\n  \
         /** Parses a number, or returns the default. */\n  \
         public static int toInt(String s, int defaultValue) {\n    \
         try { return Integer.parseInt(s); } catch (NumberFormatException e) { return defaultValue; }\n  }\n  \
         /** Parses a number and checks it is in range. */\n  \
         public static int parseInRange(String s, int min, int max) {\n    \
         int n = Integer.parseInt(s);\n    if (n < min || n > max) throw new IllegalArgumentException();\n    \
         return n;\n  }\n}\n",
    );
    write(
        r,
        "src/Range.java",
        "/** An immutable range of values. */\npublic final class Range<T> {\n  \
         private final T minimum;\n  private final T maximum;\n  \
         /** Checks whether the range contains the value. */\n  \
         public boolean contains(T value) { return true; }\n}\n",
    );
    let ret = Retrieval::default();
    let out = explained(&ret, r, "number parsing with defaults and range checks");
    assert_eq!(files(&out)[0], "src/math/NumberUtils.java", "{out:?}");
    let part = signals_of(&out, "src/Range.java");
    assert!(part.complement_stem && part.mention > 0.0, "{part:?}");
    // Named before the preposition, the same file keeps the whole mention.
    let whole = signals_of(
        &explained(&ret, r, "range checks with number parsing"),
        "src/Range.java",
    );
    assert!(!whole.complement_stem, "{whole:?}");
    assert!(
        (part.mention - 0.75 * whole.mention).abs() < 1e-4,
        "{part:?} {whole:?}"
    );
}

#[test]
fn a_word_meets_the_path_part_that_abbreviates_it() {
    // "minify stylesheets": the module that does it is named `CompressCss`; another module
    // only speaks of stylesheets. The path part `css` abbreviates the word no path holds.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "lib/Web/CompressCss.hs",
        "-- | Compress CSS to speed up the site\nmodule Web.CompressCss (compressCss) where\n\n\
         compressCss :: String -> String\ncompressCss = stripComments . stripSpaces\n",
    );
    write(
        r,
        "lib/Web/Template.hs",
        "-- | Templates: a page links its stylesheets in its head\nmodule Web.Template where\n\n\
         applyTemplate :: Template -> Item -> Item\napplyTemplate t i = i\n",
    );
    for name in ["Item", "Routes", "Site", "Feed"] {
        write(
            r,
            &format!("lib/Web/{name}.hs"),
            &format!("-- | The {name} of a site\nmodule Web.{name} where\n\nrun{name} :: Site -> IO ()\nrun{name} _ = pure ()\n"),
        );
    }
    let ret = Retrieval::default();
    let out = explained(&ret, r, "minify stylesheets");
    assert_eq!(files(&out)[0], "lib/Web/CompressCss.hs", "{out:?}");
    assert!(signals_of(&out, "lib/Web/CompressCss.hs").path > 0.0);
}

#[test]
fn a_prompt_word_also_meets_its_general_synonym() {
    // "delete old files": the module that does it says `remove`; another one lists old
    // files. Without the synonym both match "old files" alike (the lister first by path).
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/tidy.py",
        "import os\n\ndef remove_old(files):\n    \"\"\"Remove old files.\"\"\"\n             for f in files:\n        os.remove(f)\n",
    );
    write(
        r,
        "src/listing.py",
        "def list_old(files):\n    \"\"\"List old files, oldest first.\"\"\"\n             return sorted(files)\n",
    );
    for name in ["config", "server", "cli", "log"] {
        write(
            r,
            &format!("src/{name}.py"),
            &format!("def {name}_main():\n    \"\"\"The {name} entry point.\"\"\"\n    return 0\n"),
        );
    }
    let ret = Retrieval::default();
    let out = explained(&ret, r, "delete old files");
    assert_eq!(files(&out)[0], "src/tidy.py", "{out:?}");
    let tidy = signals_of(&out, "src/tidy.py");
    assert!(tidy.synonym > 0.0 && tidy.synonym < tidy.bm25, "{tidy:?}");
    assert_eq!(signals_of(&out, "src/listing.py").synonym, 0.0);
    // Said with the word the code uses, nothing is a synonym's.
    let out = explained(&ret, r, "remove old files");
    assert_eq!(files(&out)[0], "src/tidy.py", "{out:?}");
    assert_eq!(signals_of(&out, "src/tidy.py").synonym, 0.0);
    // A synonym whose list is longer than the bound is not walked: a common word of a large
    // tree (the tests' bound is 64 postings).
    for k in 0..=query::rank::MAX_SYNONYM_POSTINGS {
        write(
            r,
            &format!("src/jobs/job{k}.py"),
            &format!("def job{k}(queue):\n    queue.remove({k})\n"),
        );
    }
    let out = explained(&ret, r, "delete old files");
    assert_eq!(signals_of(&out, "src/tidy.py").synonym, 0.0, "{out:?}");
}

#[test]
fn the_projects_name_on_definition_lines_is_not_a_question_word_there() {
    // "how mylib reads": in `mylib` every definition line carries the project's prefix
    // (`struct Mylib_ctx *ctx`), so one more question word on it says nothing. The two files
    // hold the same words as often; one takes `reads` as a parameter. In a project of another
    // name, `mylib` is a question word like any other and that line holds two.
    let dir = tempfile::tempdir().unwrap();
    for project in ["mylib", "tool"] {
        let r = dir.path().join(project);
        write(
            &r,
            "src/alpha.c",
            "int compute(struct Mylib_ctx *ctx, int x) {\n  int reads = x;\n  return reads;\n}\n",
        );
        write(
            &r,
            "src/beta.c",
            "int compute(struct Mylib_ctx *ctx, int reads) {\n  int x = reads;\n  return x;\n}\n",
        );
        let ret = Retrieval::default();
        let out = explained(&ret, &r, "how mylib reads");
        let beta = signals_of(&out, "src/beta.c");
        if project == "mylib" {
            assert_eq!(beta.definition_words, 0.0, "{out:?}");
        } else {
            assert!(beta.definition_words > 0.0, "{out:?}");
            assert_eq!(files(&out)[0], "src/beta.c", "{out:?}");
        }
    }
}

#[test]
fn a_definition_line_holding_the_question_words_breaks_a_tie() {
    // Two files hold the same words as often: one takes the question's words as the
    // parameters of its definition, the other assigns them in its body. Without the rule they
    // tie and the first path wins.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/alpha.py",
        "def compute(x, y, z):\n    retry = x\n    backoff = y\n    delay = z\n    return retry, backoff, delay\n",
    );
    write(
        r,
        "src/beta.py",
        "def compute(retry, backoff, delay):\n    x = retry\n    y = backoff\n    z = delay\n    return x, y, z\n",
    );
    for name in ["config", "server", "cli", "log"] {
        write(
            r,
            &format!("src/{name}.py"),
            &format!("def {name}_main():\n    \"\"\"The {name} entry point.\"\"\"\n    return 0\n"),
        );
    }
    let ret = Retrieval::default();
    let out = explained(&ret, r, "retry backoff delay");
    assert_eq!(files(&out)[..2], ["src/beta.py", "src/alpha.py"], "{out:?}");
    let beta = signals_of(&out, "src/beta.py");
    let alpha = signals_of(&out, "src/alpha.py");
    assert!(beta.definition_words > 0.99, "{beta:?}");
    assert_eq!(alpha.definition_words, 0.0, "{alpha:?}");
    assert_eq!((beta.bm25, beta.chunk), (alpha.bm25, alpha.chunk));
    // A question of several lines is not so read.
    let out = explained(&ret, r, "retry backoff delay\nwhen the server is down");
    assert_eq!(
        signals_of(&out, "src/beta.py").definition_words,
        0.0,
        "{out:?}"
    );
}

#[test]
fn skips_ignored_vendored_and_lock_files() {
    let dir = fixture();
    let r = Retrieval::default();
    let out = r
        .retrieve(&request(dir.path(), "parseCookie router", 50))
        .unwrap();
    let paths: Vec<&str> = out.iter().map(|s| s.path.as_str()).collect();
    for bad in ["package-lock.json", "node_modules/x/index.js", "ignored.ts"] {
        assert!(!paths.contains(&bad), "{bad} in {paths:?}");
    }
}

#[test]
fn empty_prompt_no_match_and_empty_corpus_give_nothing() {
    let dir = fixture();
    let r = Retrieval::default();
    assert!(r.retrieve(&request(dir.path(), "", 10)).unwrap().is_empty());
    assert!(r
        .retrieve(&request(dir.path(), "  ... ! ", 10))
        .unwrap()
        .is_empty());
    assert!(r
        .retrieve(&request(dir.path(), "zzzqqq xylophone", 10))
        .unwrap()
        .is_empty());
    let empty = tempfile::tempdir().unwrap();
    assert!(r
        .retrieve(&request(empty.path(), "router", 10))
        .unwrap()
        .is_empty());
}

#[test]
fn honours_limit_and_is_deterministic() {
    let dir = fixture();
    let r = Retrieval::default();
    let one = r
        .retrieve(&request(dir.path(), "router cookie path request", 1))
        .unwrap();
    assert_eq!(one.len(), 1);
    let a = r
        .retrieve(&request(dir.path(), "router cookie path request", 10))
        .unwrap();
    let b = Retrieval::default()
        .retrieve(&request(dir.path(), "router cookie path request", 10))
        .unwrap();
    assert_eq!(a, b);
    assert!(a.len() >= 3);
    let big = r.retrieve(&request(dir.path(), "router", 10_000)).unwrap();
    assert!(big.len() <= MAX_LIMIT);
}

#[test]
fn rejects_bad_roots_safely() {
    let r = Retrieval::default();
    for root in ["", "relative/dir", "/definitely/not/here/xyz", "../.."] {
        let e = r
            .retrieve(&Request {
                prompt: "x y".into(),
                root: root.into(),
                limit: 5,
            })
            .unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidRequest, "{root}");
        assert!(!e.message().contains("definitely"));
    }
    let dir = fixture();
    let file = dir.path().join("README.md");
    let e = r.retrieve(&request(&file, "router", 5)).unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::InvalidRequest);
    let huge = "a ".repeat(MAX_PROMPT_BYTES);
    let e = r.retrieve(&request(dir.path(), &huge, 5)).unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::InvalidRequest);
}

#[cfg(unix)]
#[test]
fn never_reads_through_symlinks_leaving_the_root() {
    let outside = tempfile::tempdir().unwrap();
    write(
        outside.path(),
        "secret.ts",
        "export const leakedcanary = 'outside'\n",
    );
    let dir = fixture();
    std::os::unix::fs::symlink(
        outside.path().join("secret.ts"),
        dir.path().join("src/link.ts"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("src/linkdir")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("src/loop"), dir.path().join("src/loop")).ok();
    let r = Retrieval::default();
    let out = r
        .retrieve(&request(dir.path(), "leakedcanary outside", 10))
        .unwrap();
    assert!(
        out.iter().all(|s| !s.content.contains("leakedcanary")),
        "{out:?}"
    );
}

#[test]
fn sees_changed_added_and_deleted_files() {
    let dir = fixture();
    let r = Retrieval::default();
    let q = |p: &str| r.retrieve(&request(dir.path(), p, 10)).unwrap();
    assert!(q("frobnicate").is_empty());
    write(
        dir.path(),
        "src/new.ts",
        "export function frobnicate() { return 1 }\n",
    );
    assert_eq!(q("frobnicate")[0].path, "src/new.ts");
    write(
        dir.path(),
        "src/new.ts",
        "export function defrobnicate() { return 2 }\n",
    );
    let out = q("defrobnicate");
    assert!(out[0].content.contains("defrobnicate"));
    assert!(q("frobnicate")
        .iter()
        .all(|s| !s.content.contains("function frobnicate")));
    fs::remove_file(dir.path().join("src/new.ts")).unwrap();
    assert!(q("defrobnicate").is_empty());
    let s = r.prepare(dir.path().to_str().unwrap()).unwrap();
    assert_eq!(s.files, 4);
}

#[test]
fn ids_are_stable_and_content_bounded() {
    let dir = fixture();
    let long: String = (0..500)
        .map(|i| format!("const value{i} = {i} // lorem\n"))
        .collect();
    write(dir.path(), "src/long.ts", &long);
    let r = Retrieval::default();
    let a = r
        .retrieve(&request(dir.path(), "value42 lorem", 5))
        .unwrap();
    let b = r
        .retrieve(&request(dir.path(), "value42 lorem", 5))
        .unwrap();
    assert_eq!(a[0].id, b[0].id);
    assert_eq!(a[0].id.len(), 16);
    for s in &a {
        assert!(s.content.lines().count() <= MAX_SNIPPET_LINES);
        assert!(s.content.chars().count() <= MAX_SNIPPET_CHARS);
        assert_eq!(
            s.id,
            snippet_id(&s.path, s.start_line, s.end_line, &s.content)
        );
    }
}

#[test]
fn concurrent_first_calls_share_one_index() {
    let dir = fixture();
    let r = Arc::new(Retrieval::default());
    let root = dir.path().to_path_buf();
    let results: Vec<Vec<Snippet>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..16)
            .map(|_| {
                let r = r.clone();
                let root = root.clone();
                s.spawn(move || {
                    r.retrieve(&request(&root, "router match handler", 5))
                        .unwrap()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(results.windows(2).all(|w| w[0] == w[1]));
    assert_eq!(lock(&r.roots).len(), 1);
}

#[test]
fn evicts_least_recently_used_roots() {
    let r = Retrieval::new(RetrievalOptions {
        max_roots: 2,
        ..RetrievalOptions::default()
    });
    let dirs: Vec<_> = (0..3).map(|_| fixture()).collect();
    for d in &dirs {
        r.retrieve(&request(d.path(), "router", 3)).unwrap();
    }
    let st = |d: &tempfile::TempDir| r.status(d.path().to_str().unwrap()).unwrap().state;
    assert_eq!(st(&dirs[0]), IndexState::Absent);
    assert_eq!(st(&dirs[2]), IndexState::Ready);
    assert!(r.evict(dirs[2].path().to_str().unwrap()).unwrap());
    assert_eq!(st(&dirs[2]), IndexState::Absent);
}

#[test]
fn survives_odd_files() {
    let dir = fixture();
    write(dir.path(), "src/bin.ts", "abc\0\0\0def router");
    fs::write(
        dir.path().join("src/latin1.ts"),
        b"router caf\xe9 \r\nmatch\r\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        let fifo = dir.path().join("src/fifo.ts");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
    }
    let r = Retrieval::default();
    let out = r
        .retrieve(&request(dir.path(), "router match", 20))
        .unwrap();
    assert!(out.iter().all(|s| s.path != "src/bin.ts"));
    let latin = out.iter().find(|s| s.path == "src/latin1.ts").unwrap();
    assert!(!latin.content.contains('\r'));
}

#[test]
fn updates_without_walking_when_no_directory_changed() {
    use std::sync::atomic::AtomicUsize;
    use std::time::{Duration, SystemTime};
    let dir = fixture();
    let age = |p: &Path, secs: u64| {
        let t = SystemTime::now() - Duration::from_secs(secs);
        let f = fs::File::open(p).unwrap();
        f.set_modified(t).unwrap();
    };
    let all_old = |root: &Path| {
        for e in walkdir_all(root) {
            age(&e, 3600);
        }
    };
    all_old(dir.path());
    let scope = Scope::new(dir.path()).unwrap();
    let mut index = Index::new(scope, 1000);
    index.set_watching(false);
    let progress = AtomicUsize::new(0);
    index.refresh(&progress);
    assert_eq!(index.freshness(), crate::retrieve::Freshness::Polling);
    assert_eq!(index.full_walks, 1);
    assert_eq!(index.refresh(&progress), 0);
    assert_eq!(index.full_walks, 1, "an unchanged tree is only stat'ed");
    // A file rewritten in place: found by its stamp, no walk.
    write(
        dir.path(),
        "src/cookie.ts",
        "export function parseCookieJar() {}\n",
    );
    age(&dir.path().join("src/cookie.ts"), 1800);
    assert_eq!(index.refresh(&progress), 1);
    assert_eq!(index.full_walks, 1);
    let q = Query::parse("parseCookieJar");
    let hits = query::rank::rank(&index, &q, 5);
    let top = index.files[hits[0].file as usize].as_ref().unwrap();
    assert_eq!(top.rel, "src/cookie.ts");
    // A new file changes its directory: walked again.
    write(dir.path(), "src/added.ts", "export const added = 1\n");
    assert!(index.refresh(&progress) >= 1);
    assert_eq!(index.full_walks, 2);
    assert!(index.by_path.contains_key("src/added.ts"));
}

fn walkdir_all(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let mut i = 0;
    while i < out.len() {
        let p = out[i].clone();
        if p.is_dir() && !p.is_symlink() {
            for e in fs::read_dir(&p).unwrap() {
                out.push(e.unwrap().path());
            }
        }
        i += 1;
    }
    out
}

#[test]
fn redacts_secrets_in_snippets() {
    let dir = fixture();
    let token = "ghp_Zx81Kq3Lm9Vb2Nc7Hd4Fg6Js0Tw5Ye1Ru8Pa";
    write(
        dir.path(),
        "src/deploy.ts",
        &format!("export const deployTokenConfig = {{\n  token: '{token}',\n}}\n"),
    );
    let r = Retrieval::default();
    let out = r
        .retrieve(&request(dir.path(), "deployTokenConfig", 5))
        .unwrap();
    assert_eq!(out[0].path, "src/deploy.ts");
    assert!(!out[0].content.contains(token), "{}", out[0].content);
    assert!(out[0].content.contains("[REDACTED:"), "{}", out[0].content);
    // Reported with its kind and file line, never its value.
    assert_eq!(
        out[0].redactions,
        vec![crate::secrets::Redaction {
            kind: crate::secrets::SecretKind::GithubToken,
            line: 2
        }]
    );
    assert!(!format!("{:?}", out[0].redactions).contains(token));
    // The caller may opt out: the text as it is, nothing reported.
    let raw = r
        .retrieve_with(
            &request(dir.path(), "deployTokenConfig", 5),
            &SnippetOptions {
                explain: false,
                redact: false,
            },
        )
        .unwrap();
    assert_eq!(raw[0].path, "src/deploy.ts");
    assert!(raw[0].content.contains(token));
    assert!(raw[0].redactions.is_empty());
    // Snippets without secrets report nothing.
    let plain = r.retrieve(&request(dir.path(), "session", 5)).unwrap();
    assert!(plain.iter().all(|s| s.redactions.is_empty()));
}

/// A snippet that starts inside a private key block (the chunker splits a long block) must
/// not show the block's lines.
#[test]
fn snippets_starting_inside_a_key_block_show_none_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let body: Vec<String> = (0..120u64)
        .map(|i| {
            crate::secrets::fakes::rnd(
                500 + i,
                64,
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
            )
        })
        .collect();
    let label = ["PRIVATE", " KEY"].concat();
    let text = format!(
        "// key for the zebrafinch service\nconst KEY = `-----BEGIN RSA {label}-----\n{}\n-----END RSA {label}-----`\nexport function zebrafinchHandshake() {{ return KEY }}\n",
        body.join("\n")
    );
    write(dir.path(), "src/keys.ts", &text);
    let out = Retrieval::default()
        .retrieve(&request(dir.path(), "zebrafinch handshake", 20))
        .unwrap();
    assert!(!out.is_empty());
    assert!(
        out.iter().any(|s| s.start_line > 2),
        "the test needs a snippet that starts inside the block: {:?}",
        out.iter()
            .map(|s| (s.start_line, s.end_line))
            .collect::<Vec<_>>()
    );
    for s in &out {
        for line in &body {
            assert!(!s.content.contains(line.as_str()), "leaked in {}", s.source);
        }
        if s.content.contains("[REDACTED:private_key]") {
            assert!(
                s.redactions
                    .iter()
                    .any(|r| r.kind == crate::secrets::SecretKind::PrivateKey
                        && (s.start_line as usize..=s.end_line as usize).contains(&r.line)),
                "{}: {:?}",
                s.source,
                s.redactions
            );
        }
    }
}

fn paths_for(r: &Retrieval, root: &Path, prompt: &str) -> Vec<String> {
    r.retrieve(&request(root, prompt, 20))
        .unwrap()
        .into_iter()
        .map(|s| s.path)
        .collect()
}

/// A watching index of `root` (at most `max_files` files), built.
#[cfg(target_os = "linux")]
fn watched_index(root: &Path, max_files: usize) -> Index {
    let mut index = Index::new(Scope::new(root).unwrap(), max_files);
    index.refresh(&std::sync::atomic::AtomicUsize::new(0));
    assert_eq!(index.freshness(), Freshness::Watching);
    index
}

/// Asserts that what `index` holds after its updates equals a fresh build of `root`.
#[cfg(target_os = "linux")]
fn assert_same_as_fresh(index: &Index, root: &Path, max_files: usize) {
    let fresh = watched_index(root, max_files);
    let mut a: Vec<_> = index.by_path.keys().cloned().collect();
    let mut b: Vec<_> = fresh.by_path.keys().cloned().collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    assert_eq!(index.stats().chunks, fresh.stats().chunks);
    assert_eq!(index.coverage().skipped, fresh.coverage().skipped);
}

#[cfg(target_os = "linux")]
#[test]
fn watching_sees_edits_new_and_deleted_files_on_the_next_call_without_walking() {
    use std::sync::atomic::AtomicUsize;
    let dir = fixture();
    let root = dir.path();
    let mut index = watched_index(root, 1000);
    let progress = AtomicUsize::new(0);
    assert_eq!(index.full_walks, 1);
    let top = |index: &Index, prompt: &str| -> Option<String> {
        let hits = query::rank::rank(index, &Query::parse(prompt), 5);
        hits.first()
            .and_then(|h| index.files[h.file as usize].as_ref())
            .map(|f| f.rel.clone())
    };
    // Nothing changed: nothing read.
    assert_eq!(index.refresh(&progress), 0);
    // An edit in place (same size, same second: only the event tells).
    write(
        root,
        "src/cookie.ts",
        "export function parseBiscuit(header: string): Record<string, string> {\n  const out: Record<string, string> = {}\n  for (const part of header.split(';')) {\n    const [k, v] = part.split('=')\n    out[k.trim()] = decodeURIComponent(v ?? '')\n  }\n  return out\n}\n",
    );
    assert_eq!(index.refresh(&progress), 1);
    assert_eq!(
        top(&index, "parseBiscuit").as_deref(),
        Some("src/cookie.ts")
    );
    // A new file, a new directory with a file, an ignored file, a hidden file.
    write(root, "src/session.ts", "export function loadSession() {}\n");
    write(
        root,
        "src/deep/er/store.ts",
        "export function storeWidget() {}\n",
    );
    write(root, "ignored.ts", "export function ignoredThing() {}\n");
    write(root, ".cache/x.ts", "export function hiddenThing() {}\n");
    write(
        root,
        "node_modules/y/i.js",
        "export function vendoredThing() {}\n",
    );
    assert_eq!(index.refresh(&progress), 2);
    assert_eq!(
        top(&index, "loadSession").as_deref(),
        Some("src/session.ts")
    );
    assert_eq!(
        top(&index, "storeWidget").as_deref(),
        Some("src/deep/er/store.ts")
    );
    for hidden in ["ignoredThing", "hiddenThing", "vendoredThing"] {
        assert_eq!(top(&index, hidden), None, "{hidden}");
    }
    // A file in the new directory (watched since it was listed).
    write(
        root,
        "src/deep/er/more.ts",
        "export function moreWidget() {}\n",
    );
    assert_eq!(index.refresh(&progress), 1);
    assert_eq!(
        top(&index, "moreWidget").as_deref(),
        Some("src/deep/er/more.ts")
    );
    // Deletions: a file, then a whole directory.
    fs::remove_file(root.join("src/session.ts")).unwrap();
    assert_eq!(index.refresh(&progress), 1);
    assert_eq!(top(&index, "loadSession"), None);
    fs::remove_dir_all(root.join("src/deep")).unwrap();
    assert!(index.refresh(&progress) >= 2);
    assert_eq!(top(&index, "storeWidget"), None);
    assert_eq!(top(&index, "moreWidget"), None);
    assert_eq!(index.full_walks, 1, "no walk of the whole tree");
    // A changed ignore file: the rules may hide or show anything, so the tree is walked.
    write(root, ".gitignore", "\n");
    index.refresh(&progress);
    assert_eq!(index.full_walks, 2);
    assert_eq!(top(&index, "ignoredThing").as_deref(), Some("ignored.ts"));
    assert_eq!(index.freshness(), Freshness::Watching);
    // Everything the events built equals a fresh build.
    assert_same_as_fresh(&index, root, 1000);
}

#[test]
fn polling_sees_the_same_changes() {
    let dir = fixture();
    let root = dir.path();
    let r = Retrieval::new(RetrievalOptions {
        watch: false,
        ..RetrievalOptions::default()
    });
    assert!(paths_for(&r, root, "loadSession").is_empty());
    let status = r.status(root.to_str().unwrap()).unwrap();
    assert_eq!(status.freshness, Some(Freshness::Polling));
    write(root, "src/session.ts", "export function loadSession() {}\n");
    assert_eq!(paths_for(&r, root, "loadSession"), ["src/session.ts"]);
    fs::remove_file(root.join("src/session.ts")).unwrap();
    assert!(paths_for(&r, root, "loadSession").is_empty());
}

#[test]
fn edits_do_not_grow_the_file_list_and_skipped_files_are_not_reread() {
    use std::sync::atomic::AtomicUsize;
    let dir = fixture();
    let root = dir.path();
    fs::write(root.join("src/blob.ts"), b"\0\x01\x02binary\0").unwrap();
    let mut index = Index::new(Scope::new(root).unwrap(), 1000);
    index.set_watching(false);
    let progress = AtomicUsize::new(0);
    index.refresh(&progress);
    assert_eq!(index.coverage().skipped.binary, 1);
    let live = index.stats().files;
    for i in 0..300 {
        write(
            root,
            "src/cookie.ts",
            &format!("export const version{i} = {}\n", "x".repeat(i % 7)),
        );
        // A new file each time too, so polling walks the whole tree.
        write(root, &format!("tmp/f{i}.ts"), "export const t = 1\n");
        fs::remove_file(root.join(format!("tmp/f{i}.ts"))).unwrap();
        index.refresh(&progress);
    }
    assert_eq!(index.stats().files, live);
    assert!(
        index.files.len() <= live * 2 + 64,
        "{} slots for {live} files",
        index.files.len()
    );
    // A full walk with nothing changed reads nothing, the binary file included.
    progress.store(0, std::sync::atomic::Ordering::Relaxed);
    write(root, "tmp/g.ts", "export const g = 1\n");
    index.refresh(&progress);
    assert_eq!(progress.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert_eq!(index.coverage().skipped.binary, 1);
}

#[test]
fn warns_when_ignore_rules_hide_the_root() {
    let dir = fixture();
    let root = dir.path();
    write(root, ".gitignore", "# upstream rules\n*.o\n/*\n!/debian/\n");
    let r = Retrieval::default();
    assert!(paths_for(&r, root, "parseCookie router").is_empty());
    let status = r.status(root.to_str().unwrap()).unwrap();
    assert_eq!(status.stats.files, 0);
    assert!(status.coverage.ignored >= 3, "{:?}", status.coverage);
    assert_eq!(status.coverage.warnings.len(), 1, "{:?}", status.coverage);
    let w = &status.coverage.warnings[0];
    assert!(w.contains("`/*`") && w.contains(".gitignore:3"), "{w}");
    // Ordinary rules: no warning.
    let other = fixture();
    let r = Retrieval::default();
    r.prepare(other.path().to_str().unwrap()).unwrap();
    let status = r.status(other.path().to_str().unwrap()).unwrap();
    assert!(status.coverage.warnings.is_empty());
    assert_eq!(status.coverage.ignored, 1, "ignored.ts");
}

#[test]
fn skipped_files_are_counted_by_reason() {
    let dir = fixture();
    let root = dir.path();
    fs::write(root.join("src/blob.ts"), b"\0\x01\x02binary\0").unwrap();
    write(
        root,
        "src/gen.ts",
        "// Code generated by protoc. DO NOT EDIT.\nexport const g = 1\n",
    );
    write(
        root,
        "src/huge.ts",
        &"x".repeat(index::walk::MAX_FILE_BYTES as usize + 1),
    );
    let r = Retrieval::new(RetrievalOptions {
        max_files: 3,
        ..RetrievalOptions::default()
    });
    r.prepare(root.to_str().unwrap()).unwrap();
    let s = r.status(root.to_str().unwrap()).unwrap().coverage.skipped;
    assert_eq!(s.too_large, 1);
    // 6 small files listed (README, blob, cookie, gen, router, utils/url): the first 3 in path
    // order are considered, the rest are over the limit.
    assert_eq!(s.over_limit, 3, "{s:?}");
    assert_eq!(s.binary + s.generated, 1, "{s:?}");
}

#[test]
fn prepare_leaves_the_root_ready_even_when_evict_races() {
    let dir = fixture();
    let root = dir.path().to_str().unwrap().to_owned();
    let r = Arc::new(Retrieval::default());
    for _ in 0..20 {
        let evictor = {
            let r = r.clone();
            let root = root.clone();
            std::thread::spawn(move || {
                for _ in 0..50 {
                    r.evict(&root).unwrap();
                    std::thread::yield_now();
                }
            })
        };
        r.prepare(&root).unwrap();
        // Between prepare and this check only the evictor runs: the state is ready, or
        // absent if it evicted after prepare returned; never building.
        let state = r.status(&root).unwrap().state;
        assert_ne!(state, IndexState::Building);
        evictor.join().unwrap();
        r.prepare(&root).unwrap();
        assert_eq!(r.status(&root).unwrap().state, IndexState::Ready);
    }
}

#[test]
fn a_memory_budget_evicts_least_recently_used_roots() {
    let (a, b, c) = (fixture(), fixture(), fixture());
    let probe = Retrieval::default();
    let one = probe.prepare(a.path().to_str().unwrap()).unwrap().bytes;
    let r = Retrieval::new(RetrievalOptions {
        max_index_bytes: Some(one * 2 + one / 2),
        ..RetrievalOptions::default()
    });
    for d in [&a, &b, &c] {
        r.prepare(d.path().to_str().unwrap()).unwrap();
    }
    let state = |d: &tempfile::TempDir| r.status(d.path().to_str().unwrap()).unwrap().state;
    assert_eq!(state(&a), IndexState::Absent, "least recently used dropped");
    assert_eq!(state(&b), IndexState::Ready);
    assert_eq!(state(&c), IndexState::Ready);
    // A budget smaller than one index still keeps the root in use.
    let tiny = Retrieval::new(RetrievalOptions {
        max_index_bytes: Some(1),
        ..RetrievalOptions::default()
    });
    assert!(!paths_for(&tiny, a.path(), "parseCookie").is_empty());
    assert_eq!(
        tiny.status(a.path().to_str().unwrap()).unwrap().state,
        IndexState::Ready
    );
}

#[test]
fn at_the_cap_a_deleted_file_lets_the_next_one_in() {
    let dir = fixture();
    let root = dir.path();
    let r = Retrieval::new(RetrievalOptions {
        max_files: 2,
        ..RetrievalOptions::default()
    });
    // Listed in path order: README.md, src/cookie.ts, src/router.ts, src/utils/url.ts.
    assert!(paths_for(&r, root, "router match handler")
        .iter()
        .all(|p| p != "src/router.ts"));
    let status = r.status(root.to_str().unwrap()).unwrap();
    assert_eq!(
        (status.stats.files, status.coverage.skipped.over_limit),
        (2, 2)
    );
    fs::remove_file(root.join("src/cookie.ts")).unwrap();
    assert!(paths_for(&r, root, "router match handler").contains(&"src/router.ts".to_owned()));
    let status = r.status(root.to_str().unwrap()).unwrap();
    assert_eq!(
        (status.stats.files, status.coverage.skipped.over_limit),
        (2, 1)
    );
}

#[cfg(target_os = "linux")]
#[test]
fn at_the_cap_files_created_after_the_kept_ones_need_no_walk() {
    use std::sync::atomic::AtomicUsize;
    let dir = fixture();
    let root = dir.path();
    // Listed in path order: README.md, src/cookie.ts, src/router.ts, src/utils/url.ts.
    let mut index = watched_index(root, 2);
    let progress = AtomicUsize::new(0);
    let over = |index: &Index| index.coverage().skipped.over_limit;
    assert_eq!((index.stats().files, over(&index)), (2, 2));
    let found = |index: &Index, prompt: &str| {
        !query::rank::rank(index, &Query::parse(prompt), 5).is_empty()
    };
    // Created after every kept file: over the cap, not read, no walk; its edits neither.
    write(root, "zz/late.ts", "export function lateComer() {}\n");
    index.refresh(&progress);
    assert_eq!((index.full_walks, over(&index)), (1, 3));
    assert!(!found(&index, "lateComer"));
    write(root, "zz/late.ts", "export function lateComerToo() {}\n");
    index.refresh(&progress);
    assert_eq!((index.full_walks, over(&index)), (1, 3));
    fs::remove_file(root.join("zz/late.ts")).unwrap();
    index.refresh(&progress);
    assert_eq!((index.full_walks, over(&index)), (1, 2));
    // Created before a kept file: it displaces one, which only a walk decides.
    write(root, "AAA.ts", "export function earlyBird() {}\n");
    index.refresh(&progress);
    assert_eq!(index.full_walks, 2);
    assert!(found(&index, "earlyBird"));
    assert_eq!((index.stats().files, over(&index)), (2, 3));
    // What the events kept equals a fresh build's.
    write(root, "zz/late.ts", "export function lateComer() {}\n");
    index.refresh(&progress);
    assert_same_as_fresh(&index, root, 2);

    // Exactly at the cap (nothing over it yet): the same, and a deletion lets it in.
    let dir = fixture();
    let root = dir.path();
    let mut index = watched_index(root, 4);
    assert_eq!((index.stats().files, over(&index)), (4, 0));
    write(root, "zz/late.ts", "export function lateComer() {}\n");
    write(root, "zz/later.ts", "export function laterStill() {}\n");
    index.refresh(&progress);
    assert_eq!((index.full_walks, over(&index)), (1, 2));
    fs::remove_file(root.join("src/cookie.ts")).unwrap();
    index.refresh(&progress);
    assert_eq!(index.full_walks, 2);
    assert!(found(&index, "lateComer"));
    assert!(!found(&index, "laterStill"));
    assert_eq!((index.stats().files, over(&index)), (4, 1));
    assert_same_as_fresh(&index, root, 4);
}

/// The top 10 snippets for `prompt` over `root`, explained (`explain: true`).
fn explained(ret: &Retrieval, root: &Path, prompt: &str) -> Vec<Snippet> {
    ret.retrieve_with(&request(root, prompt, 10), &EXPLAIN)
        .unwrap()
}

/// The explained signals of a file's first snippet in a response (`explain: true`).
fn signals_of(out: &[Snippet], path: &str) -> Signals {
    let hit = out.iter().find(|s| s.path == path);
    hit.and_then(|s| s.signals)
        .unwrap_or_else(|| panic!("{path} not explained in {out:?}"))
}

/// The paths of a response, in rank order, each once.
fn files(out: &[Snippet]) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for s in out {
        if !seen.contains(&s.path.as_str()) {
            seen.push(&s.path);
        }
    }
    seen
}

#[test]
fn definition_beats_callers() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/tokens.py",
        "def normalize_token(raw):\n    \"\"\"Lowercases and strips a token.\"\"\"\n    return raw.strip().lower()\n",
    );
    // Callers mention the name more often than the definition does.
    for k in 0..4 {
        write(
            r,
            &format!("src/user{k}.py"),
            "from .tokens import normalize_token\n\n\ndef run(items):\n    a = [normalize_token(x) for x in items]\n    b = normalize_token(items[0])\n    return normalize_token(a[0]), b\n",
        );
    }
    let out = Retrieval::default()
        .retrieve(&request(r, "normalize_token", 10))
        .unwrap();
    assert_eq!(files(&out)[0], "src/tokens.py", "{:?}", files(&out));
}

#[test]
fn partial_class_files_yield_to_the_file_named_after_the_class() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "Dapper/SqlMapper.cs",
        "namespace Dapper\n{\n    public static partial class SqlMapper\n    {\n        public static int Execute(this IDbConnection cnn, string sql) => 0;\n    }\n}\n",
    );
    for part in ["Async", "GridReader", "Settings", "TypeHandler", "Link"] {
        write(
            r,
            &format!("Dapper/SqlMapper.{part}.cs"),
            &format!("namespace Dapper\n{{\n    public static partial class SqlMapper\n    {{\n        // {part} of SqlMapper\n        public static void {part}Helper() {{ }}\n    }}\n}}\n"),
        );
    }
    let out = Retrieval::default()
        .retrieve(&request(r, "SqlMapper", 10))
        .unwrap();
    assert_eq!(files(&out)[0], "Dapper/SqlMapper.cs", "{:?}", files(&out));
}

#[test]
fn test_files_are_demoted_unless_the_prompt_asks_for_tests() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "pkg/retry.go",
        "package pkg\n\n// Backoff returns the delay before a retry.\nfunc Backoff(attempt int) time.Duration {\n\treturn time.Duration(attempt) * time.Second\n}\n",
    );
    write(
        r,
        "pkg/retry_test.go",
        "package pkg\n\nfunc TestBackoffRetryDelay(t *testing.T) {\n\tif Backoff(2) != 2*time.Second {\n\t\tt.Fatal(\"retry backoff delay\")\n\t}\n\tif Backoff(3) != 3*time.Second {\n\t\tt.Fatal(\"retry backoff delay\")\n\t}\n}\n",
    );
    let ret = Retrieval::default();
    let out = ret
        .retrieve(&request(r, "retry backoff delay", 10))
        .unwrap();
    assert_eq!(files(&out)[0], "pkg/retry.go", "{:?}", files(&out));
    let out = ret
        .retrieve(&request(r, "the retry backoff delay test fails", 10))
        .unwrap();
    assert_eq!(files(&out)[0], "pkg/retry_test.go", "{:?}", files(&out));
}

#[test]
fn traceback_frames_find_the_failing_function() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "lib/io/table.py",
        "def read_table(path, fmt=None):\n    with open(path) as f:\n        return parse_rows(f.read(), fmt)\n",
    );
    write(
        r,
        "lib/io/rows.py",
        "def parse_rows(text, fmt):\n    rows = []\n    for line in text.splitlines():\n        rows.append(line.split(fmt.sep))\n    return rows\n",
    );
    write(
        r,
        "lib/formats.py",
        "class Format:\n    \"\"\"A table format: separator and header.\"\"\"\n    sep = ','\n    header = True\n",
    );
    // A project has more than three files: rarity (idf) means something.
    for k in 0..40 {
        write(
            r,
            &format!("lib/other/mod{k}.py"),
            &format!("def helper_{k}(value):\n    return value + {k}\n"),
        );
    }
    let prompt = "Reading a table without a format crashes\n\n```\nTraceback (most recent call last):\n  File \"/home/me/script.py\", line 4, in <module>\n    t = read_table('x.csv')\n  File \"/usr/lib/python3/site-packages/lib/io/rows.py\", line 4, in parse_rows\n    rows.append(line.split(fmt.sep))\nAttributeError: 'NoneType' object has no attribute 'sep'\n```\n";
    let out = Retrieval::default()
        .retrieve_with(&request(r, prompt, 10), &EXPLAIN)
        .unwrap();
    let top = out[0].signals.unwrap();
    assert!(top.mention > 0.0, "{top:?}");
    assert_eq!(files(&out)[0], "lib/io/rows.py", "{:?}", files(&out));
}

#[test]
fn explain_reports_the_signals() {
    let dir = fixture();
    let ret = Retrieval::default();
    let req = request(dir.path(), "parseCookie header", 5);
    let plain = ret.retrieve(&req).unwrap();
    assert!(plain.iter().all(|s| s.signals.is_none()));
    let out = ret.retrieve_with(&req, &EXPLAIN).unwrap();
    assert_eq!(out.len(), plain.len());
    let top = &out[0];
    assert_eq!(top.path, "src/cookie.ts");
    let g = top.signals.expect("signals when asked");
    assert_eq!(g.role, Role::Source);
    assert!(g.symbol > 0.0 && g.bm25 > 0.0);
    let sum = (g.bm25 + g.chunk + g.path + g.symbol + g.mention) * g.role_factor;
    assert!((sum - g.total).abs() < 1e-3 * g.total.max(1.0));
    assert!((f64::from(g.total) - top.score).abs() < 1e-3);
    // Explaining does not change the ranking.
    let strip = |v: &[Snippet]| {
        v.iter()
            .map(|s| (s.id.clone(), s.score))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&out), strip(&plain));
    // The README is docs.
    let out = ret
        .retrieve_with(&request(dir.path(), "tiny web framework", 5), &EXPLAIN)
        .unwrap();
    let readme = out.iter().find(|s| s.path == "README.md").unwrap();
    assert_eq!(readme.signals.unwrap().role, Role::Docs);
}

#[test]
fn a_header_ranks_below_the_source_file_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let decl = "struct mime_part;\nint mime_part_init(struct mime_part *part);\nint mime_part_append(struct mime_part *part, const char *multipart_body);\n";
    write(r, "lib/mime.h", decl);
    write(
        r,
        "lib/mime.c",
        "#include \"mime.h\"\n\nint mime_part_init(struct mime_part *part) {\n  return 0;\n}\n\nint mime_part_append(struct mime_part *part, const char *multipart_body) {\n  return build(part, multipart_body);\n}\n",
    );
    // The same header with no implementation beside it keeps its score.
    write(r, "other/mime.h", decl);
    let out = Retrieval::default()
        .retrieve(&request(r, "mime part multipart body append", 10))
        .unwrap();
    let f = files(&out);
    let pos = |p: &str| f.iter().position(|x| *x == p).unwrap();
    assert!(pos("lib/mime.c") < pos("lib/mime.h"), "{f:?}");
    assert!(pos("other/mime.h") < pos("lib/mime.h"), "{f:?}");
}

#[test]
fn a_module_of_type_declarations_ranks_below_the_code_it_describes() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    // The declarations repeat every word of the prompt, more often than the code does.
    write(
        r,
        "src/types/coverage.ts",
        "/** A coverage provider: instruments files and reports coverage. */\nexport interface CoverageProvider {\n  /** Coverage instrumentation of one file. */\n  instrument(file: string): string\n  /** Coverage report of the provider. */\n  reportCoverage(): void\n}\n\nexport type CoverageProviderName = 'v8' | 'istanbul'\n",
    );
    write(
        r,
        "src/node/coverage.ts",
        "import type { CoverageProvider } from '../types/coverage'\n\nexport async function loadCoverageProvider(name: string): Promise<CoverageProvider> {\n  const provider = await import(name)\n  return provider.instrument ? provider : fail(name)\n}\n",
    );
    let ret = Retrieval::default();
    let ask = |prompt: &str| explained(&ret, r, prompt);
    let out = ask("coverage provider and instrumentation");
    assert_eq!(
        files(&out),
        ["src/node/coverage.ts", "src/types/coverage.ts"],
        "{out:?}"
    );
    let g = out[1].signals.unwrap();
    assert_eq!(g.role, Role::Declarations);
    assert!(g.role_factor < 1.0, "{g:?}");
    // Unless the prompt asks for types: then the declarations are the answer.
    let out = ask("coverage provider type definitions");
    assert_eq!(files(&out)[0], "src/types/coverage.ts", "{out:?}");
    assert!(out[0].signals.unwrap().role_factor > 1.0);
    // The role follows the text: a function added to the module makes it source at the next call.
    write(
        r,
        "src/types/coverage.ts",
        "export interface CoverageProvider {\n  instrument(file: string): string\n}\n\nexport function coverageProvider(): CoverageProvider {\n  return { instrument: (f) => f }\n}\n",
    );
    let out = ask("coverage provider and instrumentation");
    let edited = out
        .iter()
        .find(|s| s.path == "src/types/coverage.ts")
        .unwrap();
    assert_eq!(edited.signals.unwrap().role, Role::Source);
}

#[test]
fn a_prompt_for_type_definitions_puts_the_declarations_above_the_code_using_them() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    // The code says more of the prompt's words; the declarations are what it asks for.
    write(
        r,
        "src/bindActionCreators.ts",
        "import type { ActionCreator, Dispatch } from './types/actions'\n\n/**\n * Binds each action creator to dispatch, so that calling it dispatches the action it creates.\n * Action creators of any action type are accepted.\n */\nexport function bindActionCreators(actionCreators: Record<string, ActionCreator>, dispatch: Dispatch) {\n  const bound: Record<string, unknown> = {}\n  for (const key in actionCreators) {\n    bound[key] = (...args: unknown[]) => dispatch(actionCreators[key](...args))\n  }\n  return bound\n}\n",
    );
    write(
        r,
        "src/types/actions.ts",
        "/** An action: a plain object with a type. */\nexport interface AnyAction {\n  type: string\n}\n\n/** An action creator. */\nexport type ActionFactory = (...args: unknown[]) => AnyAction\n",
    );
    write(
        r,
        "src/createStore.ts",
        "export function createStore(reducer: (s: unknown) => unknown) {\n  let state: unknown\n  return { getState: () => state, dispatch: (a: unknown) => { state = reducer(a) } }\n}\n",
    );
    write(
        r,
        "src/compose.ts",
        "export function compose(...fns: Array<(x: unknown) => unknown>) {\n  return (x: unknown) => fns.reduceRight((v, f) => f(v), x)\n}\n",
    );
    let out = explained(
        &Retrieval::default(),
        r,
        "action and action creator type definitions",
    );
    assert_eq!(files(&out)[0], "src/types/actions.ts", "{out:?}");
    let g = out[0].signals.unwrap();
    assert_eq!(g.role, Role::Declarations);
    assert!(g.role_factor > 1.0, "{g:?}");
}

#[test]
fn a_type_in_the_singular_is_a_kind_of_value_not_a_request_for_declarations() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/headers.ts",
        "/** Sets the Content-Type header of a request from its body. */\nexport function setContentType(headers: Map<string, string>, body: unknown) {\n  headers.set('Content-Type', typeof body === 'string' ? 'text/plain' : 'application/json')\n}\n",
    );
    write(
        r,
        "src/types/headers.ts",
        "/** Request headers: the Content-Type header and the others. */\nexport interface Headers {\n  'Content-Type'?: string\n  [name: string]: string | undefined\n}\n",
    );
    let ret = Retrieval::default();
    let ask = |prompt: &str| explained(&ret, r, prompt);
    let out = ask("fix the Content-Type header");
    assert_eq!(files(&out)[0], "src/headers.ts", "{out:?}");
    let declarations = signals_of(&out, "src/types/headers.ts");
    assert!(declarations.role_factor < 1.0, "{declarations:?}");
    // The plural asks for them.
    let out = ask("the header types");
    assert_eq!(files(&out)[0], "src/types/headers.ts", "{out:?}");
}

#[test]
fn a_prompt_naming_one_side_ranks_the_other_sides_files_lower() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    // The client's middleware says "middleware" more often; the prompt asks about the server.
    write(
        r,
        "aiohttp/client_middlewares.py",
        "\"\"\"Client middleware support.\"\"\"\n\n\ndef build_client_middlewares(handler, middlewares):\n    \"\"\"Wrap the handler in each middleware, so that the middleware chain runs in order.\"\"\"\n    for middleware in reversed(middlewares):\n        handler = middleware(handler)\n    return handler\n",
    );
    write(
        r,
        "aiohttp/web_middlewares.py",
        "def normalize_path_middleware(append_slash=True):\n    \"\"\"A middleware that redirects to the normalized path.\"\"\"\n    async def impl(request, handler):\n        return await handler(request)\n    return impl\n",
    );
    write(
        r,
        "aiohttp/web_app.py",
        "class Application:\n    def __init__(self, middlewares=()):\n        self._middlewares = list(middlewares)\n",
    );
    let ret = Retrieval::default();
    let ask = |prompt: &str| explained(&ret, r, prompt);
    let out = ask("middleware execution");
    assert_eq!(files(&out)[0], "aiohttp/client_middlewares.py", "{out:?}");
    let out = ask("server-side middleware execution");
    assert_eq!(files(&out)[0], "aiohttp/web_middlewares.py", "{out:?}");
    let client = signals_of(&out, "aiohttp/client_middlewares.py");
    assert!(client.role_factor < 1.0, "{client:?}");
    // Asked about the client, the client's file comes first.
    let out = ask("client middleware execution");
    assert_eq!(files(&out)[0], "aiohttp/client_middlewares.py", "{out:?}");
}

#[test]
fn a_tools_configuration_script_is_config_unless_the_prompt_names_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    // The test runner's configuration says the prompt's words more often than the code.
    write(
        r,
        "karma.conf.cjs",
        "// Runs the adapter tests in each browser: the browser adapter, then the node adapter.\nmodule.exports = function (config) {\n  config.set({ browsers: ['ChromeHeadless'], files: ['test/browser/adapter.spec.js', 'test/browser/env.spec.js'] })\n}\n",
    );
    write(
        r,
        "lib/adapters/xhr.js",
        "const hasBrowserEnv = typeof window !== 'undefined'\n\nexport default function xhrAdapter(config) {\n  return hasBrowserEnv ? new XMLHttpRequest() : null\n}\n",
    );
    let ret = Retrieval::default();
    let ask = |prompt: &str| explained(&ret, r, prompt);
    let out = ask("fix the browser env check of the adapter");
    assert_eq!(files(&out)[0], "lib/adapters/xhr.js", "{out:?}");
    let karma = signals_of(&out, "karma.conf.cjs");
    assert_eq!(karma.role, Role::Config);
    assert!(karma.role_factor < 1.0, "{karma:?}");
    // Named, the tool's configuration is what the prompt asks about.
    let out = ask("run the karma browser tests");
    assert_eq!(files(&out)[0], "karma.conf.cjs", "{out:?}");
    assert!(signals_of(&out, "karma.conf.cjs").role_factor >= 1.0);
}

#[test]
fn a_prompt_for_helpers_finds_the_module_named_after_their_subject() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let java = "src/main/java/org/apache/commons/lang3";
    // The builder says "string" and "text" more often; the helpers live in StringUtils.
    write(
        r,
        &format!("{java}/text/StrBuilder.java"),
        "/** Builds a string from text: appends strings and text, null-safe. */\npublic class StrBuilder {\n    /** Appends a string, or the text \"null\" for a null string. */\n    public StrBuilder append(String string) { return this; }\n    /** The text built so far, as a string. */\n    public String build() { return \"\"; }\n}\n",
    );
    write(
        r,
        &format!("{java}/StringUtils.java"),
        "/** Operations on String that are null safe. */\npublic class StringUtils {\n    public static boolean isEmpty(CharSequence cs) { return cs == null || cs.length() == 0; }\n    public static String trim(String str) { return str == null ? null : str.trim(); }\n}\n",
    );
    let ret = Retrieval::default();
    let out = explained(&ret, r, "null-safe string operations and text helpers");
    assert_eq!(
        files(&out)[0],
        format!("{java}/StringUtils.java"),
        "{out:?}"
    );
    assert!(signals_of(&out, &format!("{java}/StringUtils.java")).mention > 0.0);
    // Without a word for helpers, no module is named after them.
    let out = explained(&ret, r, "null-safe string operations and text");
    assert_eq!(
        signals_of(&out, &format!("{java}/StringUtils.java")).mention,
        0.0
    );
}

#[test]
fn a_name_beside_a_kind_of_declaration_finds_its_definition_in_a_longer_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    // The request and response say the prompt's words more often; the protocol is asked for.
    for (path, ty) in [
        ("Sources/Vapor/Request/Request.swift", "Request"),
        ("Sources/Vapor/Response/Response.swift", "Response"),
    ] {
        write(
            r,
            path,
            &format!("/// An HTTP {ty}: its headers and body, with content encoding and decoding.\npublic final class {ty} {{\n    /// The body of the {ty}, decoded or encoded as its content type says.\n    public var body: Body\n    /// Decodes the body with the content decoder for its media type.\n    public func decodeBody() throws {{}}\n    /// Encodes a value into the body with the content encoder.\n    public func encodeBody() throws {{}}\n}}\n"),
        );
    }
    write(
        r,
        "Sources/Vapor/Content/Content.swift",
        "/// A type that can be encoded to and decoded from HTTP messages.\npublic protocol Content: Codable {\n    static var defaultContentType: HTTPMediaType { get }\n}\n",
    );
    let ret = Retrieval::default();
    let out = explained(
        &ret,
        r,
        "Content protocol for encoding and decoding request and response bodies",
    );
    assert_eq!(
        files(&out)[0],
        "Sources/Vapor/Content/Content.swift",
        "{out:?}"
    );
}

/// A cats-like tree: the trait `Applicative`, and a subtrait whose doc says the prompt's words.
fn applicative_tree(r: &Path) {
    write(
        r,
        "core/cats/Applicative.scala",
        "package cats\n\n/**\n * Applicative functor: pure lifts a value, and map2 combines two values.\n */\ntrait Applicative[F[_]] extends Apply[F] {\n  def pure[A](x: A): F[A]\n}\n",
    );
    write(
        r,
        "core/cats/CommutativeApplicative.scala",
        "package cats\n\n/**\n * Further than an Applicative, a commutative one combines independent effects in any\n * order.\n */\ntrait CommutativeApplicative[F[_]] extends Applicative[F]\n",
    );
}

#[test]
fn a_capitalized_word_of_a_question_finds_the_one_file_that_defines_it() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    applicative_tree(r);
    let ret = Retrieval::default();
    let out = explained(&ret, r, "how Applicative combines independent effects");
    assert_eq!(files(&out)[0], "core/cats/Applicative.scala", "{out:?}");
    // The definition's chunk is the one shown.
    assert!(out[0].content.contains("trait Applicative["), "{out:?}");

    // Quoted as code, the word is weighed as code, not looked up as a definition; a
    // sentence's first word is no name. Each file then has only the word's own definition
    // signal.
    for prompt in [
        "how `Applicative` combines independent effects",
        "Applicative combines independent effects, and how",
    ] {
        let out = explained(&ret, r, prompt);
        let symbol = |p: &str| signals_of(&out, p).symbol;
        assert_eq!(
            symbol("core/cats/Applicative.scala"),
            symbol("core/cats/CommutativeApplicative.scala"),
            "{prompt}: {out:?}"
        );
    }
}

#[test]
fn a_capitalized_word_defined_by_several_files_lifts_none() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    applicative_tree(r);
    // A second definition of the name (a copy kept for old users): which one is meant is no
    // longer said by the word.
    write(
        r,
        "compat/cats/Applicative.scala",
        "package cats.compat\n\ntrait Applicative[F[_]] {\n  def pure[A](x: A): F[A]\n}\n",
    );
    let ret = Retrieval::default();
    let out = explained(&ret, r, "how Applicative combines independent effects");
    // Each file has only the word's own definition signal.
    let symbol = |p: &str| signals_of(&out, p).symbol;
    assert_eq!(
        symbol("core/cats/Applicative.scala"),
        symbol("core/cats/CommutativeApplicative.scala"),
        "{out:?}"
    );
}

#[test]
fn a_path_without_an_extension_names_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let code = "export default class Axios {\n  request(config) {\n    try { return dispatch(config) } catch (err) { throw err }\n  }\n}\n";
    write(r, "lib/axios.js", code);
    write(r, "lib/core/Axios.js", code);
    let out = explained(
        &Retrieval::default(),
        r,
        "fix(core/axios): handle un-writable error stack",
    );
    assert_eq!(files(&out)[0], "lib/core/Axios.js", "{out:?}");
    // Named by its module path, not only by its stem as `lib/axios.js` is.
    let named = signals_of(&out, "lib/core/Axios.js").mention;
    assert!(named > signals_of(&out, "lib/axios.js").mention, "{out:?}");
}

#[test]
fn a_symbol_prompt_finds_the_definition_spelled_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/ser/mod.rs",
        "/// A data structure that can be serialized.\npub trait Serialize {\n    fn serialize(&self) -> u8;\n}\n",
    );
    for k in 0..3 {
        write(
            r,
            &format!("src/impls{k}.rs"),
            &format!("impl Serialize for T{k} {{\n    fn serialize(&self) -> u8 {{\n        {k}\n    }}\n}}\n\nimpl<'a> Serialize for &'a U{k} {{\n    fn serialize(&self) -> u8 {{\n        {k}\n    }}\n}}\n"),
        );
    }
    write(
        r,
        "lib/plug/conn.ex",
        "defmodule Plug.Conn do\n  defstruct adapter: nil\nend\n",
    );
    write(
        r,
        "lib/plug/conn/adapter.ex",
        "defmodule Plug.Conn.Adapter do\n  @callback send(Plug.Conn.t()) :: Conn.t()\nend\n",
    );
    let ret = Retrieval::default();
    let out = ret.retrieve(&request(r, "Serialize", 10)).unwrap();
    assert_eq!(files(&out)[0], "src/ser/mod.rs", "{:?}", files(&out));
    let out = ret.retrieve(&request(r, "Conn", 10)).unwrap();
    assert_eq!(files(&out)[0], "lib/plug/conn.ex", "{:?}", files(&out));
}

#[test]
fn a_file_with_evidence_throughout_beats_one_matching_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    // The module that implements it: each function deals with one of the question's words.
    let mut central = String::new();
    for (k, w) in ["session", "store", "cookie", "expire"]
        .iter()
        .cycle()
        .take(12)
        .enumerate()
    {
        central.push_str(&format!(
            "def step_{k}(ctx):\n    \"\"\"Handles the {w}.\"\"\"\n    ctx.{w}_{k} = ctx.value\n    return ctx.{w}_{k}\n\n\n"
        ));
    }
    write(r, "web/state.py", &central);
    // A helper that names most of the words together, once.
    write(
        r,
        "web/helpers.py",
        "def describe(session):\n    \"\"\"Session cookie store.\"\"\"\n    return 'session cookie store'\n",
    );
    for k in 0..30 {
        write(
            r,
            &format!("web/other{k}.py"),
            &format!("def other_{k}(value):\n    return value * {k}\n"),
        );
    }
    let out = Retrieval::default()
        .retrieve(&request(r, "how session cookies expire in the store", 10))
        .unwrap();
    assert_eq!(files(&out)[0], "web/state.py", "{:?}", files(&out));
}

#[test]
fn prose_words_meet_the_identifier_they_spell() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/Objects.java",
        "public class Objects {\n    public static boolean reflectionEquals(Object a, Object b) {\n        return a == b;\n    }\n}\n",
    );
    // Files that use the same words apart, more often (without the phrase they rank first).
    for k in 0..3 {
        write(
            r,
            &format!("src/Other{k}.java"),
            &format!("public class Other{k} {{\n    /** Reflection over the fields: equals compares them by reflection. */\n    public boolean equals(Object o) {{\n        return reflection(o) == reflection(this);\n    }}\n\n    /** Reflection for equals. */\n    Object reflection(Object o) {{\n        return o.fields();\n    }}\n}}\n"),
        );
    }
    for k in 0..20 {
        write(
            r,
            &format!("src/Filler{k}.java"),
            &format!("public class Filler{k} {{\n    int value() {{ return {k}; }}\n}}\n"),
        );
    }
    let out = Retrieval::default()
        .retrieve(&request(r, "how does reflection equals work", 10))
        .unwrap();
    assert_eq!(files(&out)[0], "src/Objects.java", "{:?}", files(&out));
}

#[test]
fn a_header_ranks_below_the_sources_of_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    // The struct the sources use, with a comment on each field (more of the question's words
    // than the code that does it).
    let header = "struct conn {\n  int reuse; /* may this connection be reused: checked before reuse */\n  int dead; /* connection found dead, not reused */\n  long upkeep; /* connection upkeep interval */\n};\n";
    write(r, "lib/state.h", header);
    write(
        r,
        "lib/pool.c",
        "#include \"state.h\"\n\n/* Checks a connection before reuse. */\nint conn_ok(struct conn *c) {\n  return c->reuse && !c->dead;\n}\n",
    );
    // The same header in a folder of headers only keeps its score.
    write(r, "include/state.h", header);
    for k in 0..20 {
        write(
            r,
            &format!("lib/other{k}.c"),
            &format!("int other_{k}(int v) {{\n  return v + {k};\n}}\n"),
        );
    }
    let out = Retrieval::default()
        .retrieve(&request(r, "how a connection is checked for reuse", 10))
        .unwrap();
    let f = files(&out);
    let pos = |p: &str| f.iter().position(|x| *x == p).unwrap();
    assert!(pos("lib/pool.c") < pos("lib/state.h"), "{f:?}");
    assert!(pos("include/state.h") < pos("lib/state.h"), "{f:?}");
}

#[test]
fn a_build_cancelled_before_it_starts_leaves_no_entry() {
    let dir = fixture();
    let root = dir.path().to_str().unwrap();
    let r = Retrieval::new(RetrievalOptions::default());
    let cancel = crate::cancel::Cancel::new();
    cancel.cancel();
    assert!(r.prepare_cancellable(root, &cancel).is_err());
    assert_eq!(r.status(root).unwrap().state, IndexState::Absent);
    // The next call builds as usual.
    assert!(!paths_for(&r, dir.path(), "parseCookie").is_empty());
    assert_eq!(r.status(root).unwrap().state, IndexState::Ready);
}

#[test]
fn a_one_line_question_prefers_the_file_whose_names_others_use() {
    // Two files match the question alike; the rest of the tree calls only `beginRun`.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let runner = |name: &str| {
        format!("// runs the test files\nexport function {name}() {{\n  return 1\n}}\n")
    };
    write(r, "src/a.ts", &runner("startRun"));
    write(r, "src/b.ts", &runner("beginRun"));
    for k in 0..3 {
        write(
            r,
            &format!("src/user{k}.ts"),
            "import { beginRun } from './b'\nbeginRun()\n",
        );
    }
    let ret = Retrieval::default();
    let paths = |prompt: &str| -> Vec<String> {
        ret.retrieve(&request(r, prompt, 10))
            .unwrap()
            .into_iter()
            .map(|s| s.path)
            .collect()
    };
    let first = paths("how the test files are run");
    assert_eq!(first[..2], ["src/b.ts", "src/a.ts"], "{first:?}");
    // A prompt of several lines (a change to make) gets no such prior (factor 1); what lifts
    // `b.ts` there is the three top files that import it (the references among the top files).
    let change = "test files: run them\n\nThe runner should run the test files.";
    let out = explained(&ret, r, change);
    let b = signals_of(&out, "src/b.ts");
    assert_eq!((b.role_factor, b.referenced_by), (1.0, 3), "{b:?}");
    let a = signals_of(&out, "src/a.ts");
    assert_eq!((a.role_factor, a.referenced_by), (1.0, 0), "{a:?}");
    assert_eq!(files(&out)[..2], ["src/b.ts", "src/a.ts"]);
}

/// Two files that match "how the test files are run" alike (`src/a.ts` defines `startRun`,
/// `src/b.ts` `beginRun`), and three files calling `name`.
fn runners(r: &Path, name: &str) {
    let runner = |name: &str| {
        format!("// runs the test files\nexport function {name}() {{\n  return 1\n}}\n")
    };
    write(r, "src/a.ts", &runner("startRun"));
    write(r, "src/b.ts", &runner("beginRun"));
    for k in 0..3 {
        write(
            r,
            &format!("src/user{k}.ts"),
            &format!("import {{ {name} }} from './x'\n{name}()\n"),
        );
    }
}

#[test]
fn centrality_follows_the_files_whatever_the_edits_before() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    runners(r, "beginRun");
    let prompt = "how the test files are run";
    let ret = Retrieval::default();
    let first = ret.retrieve(&request(r, prompt, 10)).unwrap();
    assert_eq!(first[0].path, "src/b.ts", "{first:?}");
    // The callers now call the other one: what ranking learned of the names is stale.
    std::thread::sleep(std::time::Duration::from_millis(20));
    runners(r, "startRunning");
    for k in 0..3 {
        write(
            r,
            &format!("src/user{k}.ts"),
            "import { startRun } from './a'\nstartRun()\nstartRun()\n",
        );
    }
    let after = ret.retrieve(&request(r, prompt, 10)).unwrap();
    assert_eq!(after[0].path, "src/a.ts", "{after:?}");
    // The same as an index built over these files at once.
    let fresh = Retrieval::default()
        .retrieve(&request(r, prompt, 10))
        .unwrap();
    assert_eq!(after, fresh);
}

#[test]
fn centrality_is_the_same_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let r = dir.path();
    runners(r, "beginRun");
    let options = RetrievalOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        ..RetrievalOptions::default()
    };
    let prompt = "how the test files are run";
    let first = Retrieval::new(options.clone());
    let before = first.retrieve(&request(r, prompt, 10)).unwrap();
    assert_eq!(before[0].path, "src/b.ts", "{before:?}");
    // Dropping waits for the save. The restored index did not record the files' names: they
    // are read from the texts.
    drop(first);
    let second = Retrieval::new(options);
    assert_eq!(second.retrieve(&request(r, prompt, 10)).unwrap(), before);
}

#[test]
fn file_ranks_put_the_file_the_others_use_first_with_roles_and_folders() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "src/core/engine.ts",
        "export function startEngine(config: object) {\n  return config\n}\n",
    );
    write(
        r,
        "src/core/helper.ts",
        "export function lonelyHelper() {\n  return 1\n}\n",
    );
    for k in 0..6 {
        write(
            r,
            &format!("src/feature{k}.ts"),
            &format!(
                "import {{ startEngine }} from './core/engine'\nexport function feature{k}() {{\n  return startEngine({{}})\n}}\n"
            ),
        );
    }
    for k in 0..3 {
        write(
            r,
            &format!("tests/t{k}.test.ts"),
            &format!(
                "import {{ feature{k} }} from '../src/feature{k}'\ntest('x', () => feature{k}())\n"
            ),
        );
    }
    write(r, "docs/guide.md", "# Guide\n\nRead the source.\n");
    let ret = Retrieval::default();
    let root = r.to_str().unwrap();
    let all = |limit: usize, path: Option<&str>| {
        let options = FileRankOptions {
            limit,
            path: path.map(str::to_owned),
        };
        ret.file_ranks(root, &options, &Cancel::default())
    };
    let out = all(100, None).unwrap();
    assert_eq!(out.total, 12);
    assert_eq!(out.files.len(), 12);
    assert_eq!(out.files[0].path, "src/core/engine.ts", "{:?}", out.files);
    assert!(out.files[0].centrality > 0.0);
    assert_eq!(out.files[0].role, Role::Source);
    assert_eq!(out.files[0].language, Some("typescript"));
    // Centrality descending, ties by path: the same order on every call.
    for w in out.files.windows(2) {
        assert!(
            w[0].centrality > w[1].centrality
                || w[0].centrality == w[1].centrality && w[0].path < w[1].path,
            "{w:?}"
        );
    }
    let helper = out
        .files
        .iter()
        .find(|f| f.path == "src/core/helper.ts")
        .unwrap();
    assert_eq!(helper.centrality, 0.0);
    assert_eq!(all(100, None).unwrap(), out);
    let folder = |p: &str| out.folders.iter().find(|f| f.path == p).cloned();
    assert_eq!(
        folder("src").map(|f| (f.files, f.role)),
        Some((8, Role::Source))
    );
    assert_eq!(folder("src/core").map(|f| f.files), Some(2));
    assert_eq!(
        folder("tests").map(|f| (f.files, f.role)),
        Some((3, Role::Test))
    );
    assert_eq!(folder("docs").map(|f| f.role), Some(Role::Docs));
    assert_eq!(out.folders[0].path, "src");
    // The limit bounds the files, not the total or the folders.
    let two = all(2, None).unwrap();
    assert_eq!(two.files, out.files[..2].to_vec());
    assert_eq!((two.total, two.folders.len()), (12, out.folders.len()));
    // A folder: only its files; its subfolders as folders.
    let src = all(100, Some("src/")).unwrap();
    assert_eq!(src.total, 8);
    assert_eq!(src.files[0].path, "src/core/engine.ts");
    assert!(src.files.iter().all(|f| f.path.starts_with("src/")));
    assert_eq!(
        src.folders
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        ["src/core"]
    );
    assert_eq!(all(100, Some("nowhere")).unwrap().total, 0);
    for bad in ["../x", "/etc", "src/../x", "./src", "a//b"] {
        let e = all(10, Some(bad)).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidRequest, "{bad}");
    }
    let e = ret
        .file_ranks(
            "relative/root",
            &FileRankOptions::default(),
            &Cancel::default(),
        )
        .unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::InvalidRequest);
    let cancelled = Cancel::default();
    cancelled.cancel();
    assert!(ret
        .file_ranks(root, &FileRankOptions::default(), &cancelled)
        .is_err());
}

/// A file the process may not read is skipped as unreadable and the rest is indexed (the
/// capabilities that would let root read it are dropped for this thread and the threads it
/// starts; see `test_support`).
#[cfg(unix)]
#[test]
fn unreadable_files_are_skipped_and_counted() {
    use std::os::unix::fs::PermissionsExt;
    let dir = fixture();
    let root = dir.path();
    write(root, "src/locked.ts", "export const routerLocked = 1\n");
    let locked = root.join("src/locked.ts");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let baseline = fixture();
    let b = Retrieval::default();
    b.prepare(baseline.path().to_str().unwrap()).unwrap();
    let files = b
        .status(baseline.path().to_str().unwrap())
        .unwrap()
        .stats
        .files;
    let user = crate::test_support::Unprivileged::enter();
    if !user.can_read(&locked) {
        let r = Retrieval::default();
        r.prepare(root.to_str().unwrap()).unwrap();
        let status = r.status(root.to_str().unwrap()).unwrap();
        assert_eq!(
            status.coverage.skipped.unreadable, 1,
            "{:?}",
            status.coverage
        );
        assert_eq!(status.stats.files, files, "the other files are indexed");
        let hits = r
            .retrieve(&request(root, "routerLocked router", 20))
            .unwrap();
        assert!(!hits.is_empty());
        assert!(hits.iter().all(|s| s.path != "src/locked.ts"));
    }
    drop(user);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o644)).unwrap();
}

#[test]
fn the_newest_version_folder_is_not_an_old_copy() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let parse = "export function parseSchema(input: string) {\n  return input.split(',')\n}\n";
    write(root, "src/v3/schema.ts", parse);
    write(root, "src/v4/schema.ts", parse);
    write(root, "lib/v1/schema.ts", parse);
    write(
        root,
        "lib/schema_util.ts",
        "export const schemaVersion = 2\n",
    );
    let ret = Retrieval::new(RetrievalOptions::default());
    let out = explained(&ret, root, "how is a schema parsed from its input");
    let (v3, v4) = (
        signals_of(&out, "src/v3/schema.ts"),
        signals_of(&out, "src/v4/schema.ts"),
    );
    assert_eq!((v3.role, v4.role), (Role::Legacy, Role::Legacy));
    assert_eq!(
        v4.role_kept,
        Some(query::rank::RoleKept::NewestVersion),
        "{v4:?}"
    );
    assert!(
        v4.role_factor >= 1.0 && v3.role_factor < 1.0,
        "{v3:?} {v4:?}"
    );
    // A lone version folder beside the current code stays an old copy.
    let v1 = signals_of(&out, "lib/v1/schema.ts");
    assert!(v1.role_kept.is_none() && v1.role_factor < 1.0, "{v1:?}");
    assert_eq!(files(&out)[0], "src/v4/schema.ts");
}

#[test]
fn a_declarations_module_that_defines_the_name_asked_for_is_not_demoted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "src/types.ts",
        "export interface ContextAdapter {\n  fetch(id: string): Promise<string>\n}\n",
    );
    write(
        root,
        "src/adapters/http.ts",
        "import type { ContextAdapter } from '../types'\n\nexport const http: ContextAdapter = {\n  \
         fetch: async (id) => id,\n}\n\nexport function wrap(a: ContextAdapter): ContextAdapter {\n  \
         return a\n}\n",
    );
    let ret = Retrieval::new(RetrievalOptions::default());
    let out = explained(&ret, root, "ContextAdapter");
    let g = signals_of(&out, "src/types.ts");
    assert_eq!(g.role, Role::Declarations);
    assert_eq!(
        g.role_kept,
        Some(query::rank::RoleKept::DefinesName),
        "{g:?}"
    );
    assert_eq!(files(&out)[0], "src/types.ts");
}

#[test]
fn a_pasted_error_lifts_the_file_whose_string_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "app/globals.py",
        "_no_app_msg = \"\"\"\\\nWorking outside of application context.\n\"\"\"\n\n\
         def current_app():\n    raise RuntimeError(_no_app_msg)\n",
    );
    write(
        root,
        "app/ctx.py",
        "class AppContext:\n    \"\"\"The application context: pushed while a request or \
         command runs.\"\"\"\n\n    def push(self):\n        self.app.context_stack.append(self)\n\n\
         def has_app_context():\n    return bool(app_context_stack)\n",
    );
    let ret = Retrieval::new(RetrievalOptions::default());
    let prompt = "Using the app in a thread fails\n\nRuntimeError: Working outside of application \
                  context.\n\nThe application context should be pushed.";
    let out = explained(&ret, root, prompt);
    let g = signals_of(&out, "app/globals.py");
    assert!(g.message > 0.0, "{g:?}");
    assert_eq!(signals_of(&out, "app/ctx.py").message, 0.0);
    assert_eq!(files(&out)[0], "app/globals.py", "{out:?}");
}

/// A test framework's reports speak of tests: a report's title word for tests is the project's
/// own vocabulary (most of its source files hold it), so its test files stay demoted and
/// `explain` says why; a one-line question's word still asks for them.
#[test]
fn a_test_frameworks_reports_do_not_ask_for_its_tests() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "quiz/runner.py",
        "\"\"\"Runs each collected test: setup, the test, teardown.\"\"\"\n\n\ndef run_test(item):\n    if item.skipped:\n        return 'skipped'\n    item.setup()\n    try:\n        item.call()\n    finally:\n        item.teardown()\n",
    );
    write(
        r,
        "quiz/collect.py",
        "\"\"\"Finds the test functions of a module.\"\"\"\n\n\ndef collect(module):\n    return [f for name, f in vars(module).items() if name.startswith('test')]\n",
    );
    write(
        r,
        "quiz/report.py",
        "\"\"\"Prints one line per test: passed, failed or skipped.\"\"\"\n\n\ndef line(test, outcome):\n    return f'{test.name} {outcome}'\n",
    );
    write(
        r,
        "tests/test_runner.py",
        "from quiz.runner import run_test\n\n\ndef test_skipped_test_runs_no_teardown():\n    # A skipped test: its teardown must not run, nor its setup.\n    item = Item(skipped=True)\n    assert run_test(item) == 'skipped'\n    assert not item.teardown_called\n    assert not item.setup_called\n\n\ndef test_teardown_runs_after_a_failed_test():\n    item = Item(fails=True)\n    run_test(item)\n    assert item.teardown_called\n",
    );
    let ret = Retrieval::default();
    let report = "Skipped tests still run their teardown\n\nWhen a test is skipped, its teardown still runs after it.\nExpected: no setup and no teardown for a skipped test.\nSeen with version 2 of the runner.";
    let out = explained(&ret, r, report);
    let ranked = files(&out);
    assert_eq!(ranked.first(), Some(&"quiz/runner.py"), "{ranked:?}");
    let test = signals_of(&out, "tests/test_runner.py");
    assert!(test.role_unasked, "{test:?}");
    assert!(test.role_factor < 1.0, "{test:?}");
    assert!(!signals_of(&out, "quiz/runner.py").role_unasked);
    // A one-line question that names tests asks for them.
    let out = explained(&ret, r, "the test that a skipped test runs no teardown");
    let test = signals_of(&out, "tests/test_runner.py");
    assert!(!test.role_unasked && test.role_factor >= 1.0, "{test:?}");
}

#[test]
fn a_longer_prompt_lifts_the_module_its_top_files_import() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "pkg/records.py",
        "def format_field(value):\n    # the exponent separator\n    return value.replace('E', 'D')\n",
    );
    write(
        r,
        "pkg/table.py",
        "from .records import format_field\n\n\ndef write_table(rows):\n    # replace the exponent separator when writing a table\n    return [format_field(r) for r in rows]\n",
    );
    write(
        r,
        "pkg/column.py",
        "from pkg.records import format_field\n\n\ndef write_column(col):\n    # replace the exponent separator when writing a column\n    return format_field(col)\n",
    );
    write(r, "pkg/other.py", "def unrelated():\n    return 1\n");
    let ret = Retrieval::default();
    let prompt = "Exponent separator is not replaced when writing\nThe replace of the exponent separator returns a copy.";
    let out = explained(&ret, r, prompt);
    let records = signals_of(&out, "pkg/records.py");
    assert_eq!(records.referenced_by, 2, "{out:?}");
    let factor = 3f32.powf(query::refs::W_REFERENCE);
    assert!(
        (records.reference_factor - factor).abs() < 1e-4,
        "{records:?}"
    );
    let table = signals_of(&out, "pkg/table.py");
    assert_eq!((table.referenced_by, table.reference_factor), (0, 1.0));
    // The factor is part of the file's score.
    let base = records.bm25 + records.chunk + records.path + records.symbol + records.mention;
    let expected = base * records.role_factor * factor;
    assert!(
        (records.total - expected).abs() < 1e-3 * expected,
        "{records:?}"
    );
    // A one-line prompt is not re-ranked by references.
    let out = explained(&ret, r, "exponent separator replaced when writing");
    let records = signals_of(&out, "pkg/records.py");
    assert_eq!((records.referenced_by, records.reference_factor), (0, 1.0));
}

/// A long prompt with more known terms than are kept keeps its title's code identifier,
/// though every module uses it: cutting to the rarest terms alone dropped it for the rare
/// words of a pasted dump, and the file that defines it was not found at all.
#[test]
fn a_long_prompt_keeps_the_identifier_of_its_title() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "pkg/computation.py",
        "def where(cond, x, y):\n    return apply(cond, x, y)\n",
    );
    for k in 0..30 {
        write(
            r,
            &format!("pkg/mod{k}.py"),
            &format!("def helper{k}(data):\n    return data.where(data > {k})\n"),
        );
    }
    // Rare words, each in one file only: more of them than the terms a prompt keeps.
    let letters = ['b', 'c', 'f', 'k', 'm', 'p', 't', 'v', 'w', 'z'];
    let rare: Vec<String> = (0..80)
        .map(|k| format!("qx{}{}o", letters[k / 10], letters[k % 10]))
        .collect();
    write(r, "data/dump.txt", &rare.join("\n"));
    let prompt = format!(
        "`xr.where(...)` loses the dump\nThe dump reads:\n{}\n",
        rare.join(" ")
    );
    assert!(rare.len() > query::rank::MAX_QUERY_TERMS);
    let ret = Retrieval::default();
    let out = explained(&ret, r, &prompt);
    let ranked = files(&out);
    let at = |p: &str| ranked.iter().position(|f| *f == p);
    let defining = at("pkg/computation.py").unwrap_or_else(|| panic!("{ranked:?}"));
    // Above every file that only uses the name.
    for k in 0..30 {
        let user = format!("pkg/mod{k}.py");
        assert!(at(&user).is_none_or(|u| u > defining), "{ranked:?}");
    }
    assert!(signals_of(&out, "pkg/computation.py").symbol > 0.0);
}

#[test]
fn the_best_files_do_not_depend_on_how_many_are_asked_for() {
    // C sources with companion headers (demoted once ranked) and functions used across files
    // (the centrality prior): a file that passes a demoted header must carry its prior
    // whatever the limit, so the best 10 of a request for 10 are the first 10 of one for 30.
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let words = [
        "socket", "handle", "buffer", "timer", "cookie", "header", "proxy", "resolve",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    for k in 0..60 {
        let mut text = format!("int unit_{k}(int v)\n{{\n");
        for _ in 0..=next(6) {
            let w = words[next(words.len() as u64) as usize];
            text.push_str(&format!("  /* the {w} */\n"));
        }
        for _ in 0..next(4) {
            text.push_str(&format!("  v += unit_{}(v);\n", next(12)));
        }
        text.push_str("  return v;\n}\n");
        write(r, &format!("lib/m{k}.c"), &text);
        if k % 3 == 0 {
            let mut header = format!("int unit_{k}(int v);\n");
            for _ in 0..=next(8) {
                let w = words[next(words.len() as u64) as usize];
                header.push_str(&format!("/* {w} {w} */\n"));
            }
            write(r, &format!("lib/m{k}.h"), &header);
        }
    }
    let ret = Retrieval::default();
    let mut compared = 0;
    for a in words {
        for b in words {
            if a >= b {
                continue;
            }
            let prompt = format!("how the {a} and the {b} are kept");
            let ten = ret.retrieve(&request(r, &prompt, 10)).unwrap();
            let thirty = ret.retrieve(&request(r, &prompt, 30)).unwrap();
            let (ten, thirty) = (files(&ten), files(&thirty));
            assert_eq!(ten[..], thirty[..ten.len()], "{prompt}");
            compared += 1;
        }
    }
    assert_eq!(compared, 28);
}

#[test]
fn a_lifted_line_shows_the_chunk_it_passed_over_below_the_next_files() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    // The file that raises the quoted message, whose best chunk before the message's lift is
    // another one: the function that acquires connections from the pool.
    let mut pool = String::from(
        "def acquire(pool, timeout):\n    \"\"\"Acquire a connection from the pool.\"\"\"\n",
    );
    for k in 0..8 {
        pool.push_str(&format!(
            "    # waiting fails, slot exhausted: connection {k} of the pool\n    connection_{k} = pool.acquire_connection(timeout)\n"
        ));
    }
    pool.push_str("    return pool\n\n\n");
    for k in 0..12 {
        pool.push_str(&format!("def other{k}(x):\n    return x + {k}\n\n\n"));
    }
    pool.push_str("def give_up():\n    raise PoolError(\"connection pool exhausted while waiting for a slot\")\n");
    write(r, "src/pool.py", &pool);
    // The files next in line: they acquire connections too.
    for (k, name) in ["engine", "client", "session"].iter().enumerate() {
        let mut text = format!("def {name}_acquire(pool, timeout):\n");
        for j in 0..4 {
            text.push_str(&format!(
                "    # waiting fails, slot exhausted\n    c{j} = pool.acquire_connection(timeout + {k})\n"
            ));
        }
        text.push_str("    return c0\n");
        write(r, &format!("src/{name}.py"), &text);
    }
    let ret = Retrieval::default();
    let out = ret
        .retrieve_with(
            &request(
                r,
                "acquire fails with \"connection pool exhausted while waiting for a slot\"",
                10,
            ),
            &EXPLAIN,
        )
        .unwrap();
    let shown = shown(&out);
    assert_eq!(shown[0].0, "src/pool.py", "{shown:?}");
    assert!(out[0].content.contains("raise PoolError"), "{shown:?}");
    // The chunk it showed first before the lift comes after the other files' best chunks.
    assert_eq!(shown.len(), 5, "{shown:?}");
    assert_eq!(shown[4].0, "src/pool.py", "{shown:?}");
    assert_eq!(shown[4].1, 1, "{shown:?}");
}

#[test]
fn a_files_second_chunk_comes_after_files_a_seventh_as_strong() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    // The answer: two functions far apart that both round invoice totals to the currency.
    let mut invoice = String::from(
        "def round_invoice_total(invoice, currency):\n    \"\"\"Round the invoice total to the currency precision.\"\"\"\n    precision = currency.precision\n    return round(invoice.total, precision)\n\n\n",
    );
    for k in 0..10 {
        invoice.push_str(&format!("def helper{k}(x):\n    return x * {k}\n\n\n"));
    }
    invoice.push_str("def round_invoice_lines(invoice, currency):\n    \"\"\"Round each invoice line total to the currency precision.\"\"\"\n    precision = currency.precision\n    for line in invoice.lines:\n        line.total = round(line.total, precision)\n");
    write(r, "billing/invoice.py", &invoice);
    // Files that name two words of the question: far weaker, still new files to look at.
    for (k, name) in ["ledger", "report", "export", "audit"].iter().enumerate() {
        write(
            r,
            &format!("billing/{name}.py"),
            &format!("def {name}_amount(amount, currency):\n    \"\"\"The amount at the currency precision ({k}).\"\"\"\n    return amount * currency.rate\n"),
        );
    }
    // The rest of the tree.
    for k in 0..30 {
        write(
            r,
            &format!("app/module{k}.py"),
            &format!("def handler{k}(request):\n    return request.user.name + \"{k}\"\n"),
        );
    }
    let ret = Retrieval::default();
    let out = ret
        .retrieve_with(
            &request(
                r,
                "how is the invoice total rounded to the currency precision",
                10,
            ),
            &EXPLAIN,
        )
        .unwrap();
    let shown = shown(&out);
    assert_eq!(shown.len(), 6, "{shown:?}");
    assert_eq!(
        (shown[0].0, shown[0].1),
        ("billing/invoice.py", 1),
        "{shown:?}"
    );
    // The other files' best chunks score about a seventh of the answer's...
    for s in &shown[1..5] {
        assert_ne!(s.0, "billing/invoice.py", "{shown:?}");
        assert!(s.2 < shown[0].2 / 5.0, "{shown:?}");
    }
    // ...and still come before its second function.
    assert_eq!(
        (shown[5].0, shown[5].1),
        ("billing/invoice.py", 43),
        "{shown:?}"
    );
}
