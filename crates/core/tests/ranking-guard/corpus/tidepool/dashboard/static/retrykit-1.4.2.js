/*! retrykit 1.4.2 | MIT licence | a small retry helper for browsers */
;(function (root) {
  'use strict'

  // The delay before a failed attempt is retried: exponential backoff, doubled after each
  // failed attempt and capped, with jitter so that failed clients do not retry together.
  // A failed attempt is retried after this backoff delay.
  function backoff(attempt, base, cap) {
    var delay = Math.min(cap, base * Math.pow(2, attempt))
    return delay / 2 + Math.random() * (delay / 2)
  }

  // Calls fn until it succeeds or the attempts run out; a failed attempt is retried after
  // its backoff delay. Resolves with the result, or rejects with the last error.
  function retry(fn, options) {
    var maxAttempts = (options && options.maxAttempts) || 5
    var base = (options && options.base) || 100
    var cap = (options && options.cap) || 10000
    return new Promise(function (resolve, reject) {
      function attempt(n) {
        Promise.resolve()
          .then(fn)
          .then(resolve, function (error) {
            if (n + 1 >= maxAttempts) return reject(error)
            setTimeout(function () { attempt(n + 1) }, backoff(n, base, cap))
          })
      }
      attempt(0)
    })
  }

  root.retrykit = { retry: retry, backoff: backoff, version: '1.4.2' }
})(this)
