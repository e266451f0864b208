// The error model at the N-API boundary: every contract code reaches JavaScript as an Error
// with that `code`, from a sync and from an async export, and a panic inside the engine
// surfaces as `internal` without taking the process down.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import * as published from '../lib/index.js'
import * as binding from '../index.js'
import { diagnostics as engine } from './support/diagnostics.js'

const CODES = ['invalid_request', 'unauthorized', 'unavailable', 'timeout', 'internal'] as const

function assertCode(err: unknown, code: string): void {
  assert.ok(err instanceof Error, `expected an Error, got ${typeof err}`)
  assert.equal((err as Error & { code?: string }).code, code)
  assert.equal(typeof err.message, 'string')
  assert.ok(err.message.length > 0)
}

for (const code of CODES) {
  test(`sync export throws code ${code}`, () => {
    assert.throws(
      () => engine.__raiseErrorSync(code),
      (err: unknown) => {
        assertCode(err, code)
        return true
      },
    )
  })

  test(`async export rejects with code ${code}`, async () => {
    await assert.rejects(engine.__raiseErrorAsync(code), (err: unknown) => {
      assertCode(err, code)
      assert.ok((err as Error).stack, 'a rejected Error keeps a stack')
      return true
    })
  })
}

for (const code of [...CODES, 'panic']) {
  test(`an async export whose work is a future rejects with code ${code === 'panic' ? 'internal' : code}`, async () => {
    await assert.rejects(engine.__raiseErrorAsync(code, true), (err: unknown) => {
      assertCode(err, code === 'panic' ? 'internal' : code)
      return true
    })
  })
}

test('a panic in a sync export becomes internal and the process lives on', () => {
  assert.throws(
    () => engine.__raiseErrorSync('panic'),
    (err: unknown) => {
      assertCode(err, 'internal')
      assert.doesNotMatch((err as Error).message, /diagnostic panic requested/)
      return true
    },
  )
  assert.equal(engine.estimateTokens('abcd'), 1)
})

test('a panic in an async export becomes internal and the process lives on', async () => {
  await assert.rejects(engine.__raiseErrorAsync('panic'), (err: unknown) => {
    assertCode(err, 'internal')
    return true
  })
  assert.equal(await engine.countTokens('hello world'), 2)
})

test('wrong argument types are invalid_request, not napi InvalidArg', async () => {
  const bad = [42, null, undefined, {}, [], Symbol('s'), 10n, () => 1] as unknown[]
  for (const value of bad) {
    assert.throws(() => engine.__raiseErrorSync(value as string), (err: unknown) => {
      assertCode(err, 'invalid_request')
      return true
    })
    await assert.rejects(engine.__raiseErrorAsync(value as string), (err: unknown) => {
      assertCode(err, 'invalid_request')
      return true
    })
  }
})

test('async validation failures reject rather than throw synchronously', async () => {
  let promise: Promise<number> | undefined
  assert.doesNotThrow(() => {
    promise = engine.countTokens(123 as unknown as string)
  })
  await assert.rejects(promise!, (err: unknown) => {
    assertCode(err, 'invalid_request')
    return true
  })
})

test('many concurrent failing and succeeding calls settle independently', async () => {
  const calls = Array.from({ length: 200 }, (_, i) =>
    i % 2 === 0 ? engine.__raiseErrorAsync(CODES[i % CODES.length]) : engine.countTokens('x'.repeat(i)),
  )
  const settled = await Promise.allSettled(calls)
  settled.forEach((s, i) => {
    if (i % 2 === 0) {
      assert.equal(s.status, 'rejected')
      assert.equal((s as PromiseRejectedResult).reason.code, CODES[i % CODES.length])
    } else {
      assert.equal(s.status, 'fulfilled')
    }
  })
})

test('the published addon and the package entry have no diagnostic exports', () => {
  for (const names of [Object.keys(binding), Object.keys(published)]) {
    assert.ok(names.includes('retrieve'))
    assert.deepEqual(
      names.filter((name) => name.startsWith('__raise')),
      [],
    )
  }
})
