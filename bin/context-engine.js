#!/usr/bin/env node
// The `context-engine` command: the compiled command line (lib/cli.ts, built by `npm run build`).
'use strict'
require('../dist/cli.js').main()
