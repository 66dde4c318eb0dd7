// Steps of an SDK story: one line each, "ok NAME" or "not ok NAME: why",
// which the Go side counts (sdktest.Steps).
let failed = 0

export async function step(name, fn) {
  try {
    await fn()
    console.log(`ok ${name}`)
  } catch (err) {
    failed++
    console.log(`not ok ${name}: ${String(err && err.stack ? err.stack : err).split('\n').slice(0, 3).join(' | ')}`)
  }
}

export function expect(cond, what) {
  if (!cond) throw new Error(what)
}

export function equal(got, want, what) {
  if (got !== want) throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`)
}

// finish ends the story with the status its steps earned.
export function finish() {
  process.exit(failed ? 1 : 0)
}
