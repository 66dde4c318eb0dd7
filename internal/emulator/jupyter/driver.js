// The JavaScript kernel of the emulated code interpreter: one node process
// per context, imitating the template's kernel, ijavascript (its session
// library, nel), as the code interpreter's server passes it on.
//
// Requests come on stdin, one JSON object a line: {"code": ..., "env_vars":
// ...}. Events leave on file descriptor 3, one JSON object a line, in the
// wire shapes of the code interpreter's /execute stream, as the Python
// driver's do (the Go side adds timestamps to stdout and stderr).
//
// What it imitates: code runs in this process's global context, so what a
// cell declares (var, let, const, function, class) lives on in the next;
// console and process.stdout/stderr are the cell's output; the cell's
// completion value is its main result, util.inspect's text of it
// ("undefined" included: ijavascript shows undefined); an error is its
// name, message and stack, the stack's lines joined with nothing between
// them, as the server joins a kernel's traceback lines. Code with a
// top-level await runs as the body of an async function: its declarations
// do not outlive the cell (the template's kernel rewrites them to).
// Node's standard library only.

'use strict'

const fs = require('fs')
const util = require('util')
const vm = require('vm')

const EVENTS = 3

function send (event) {
  const data = Buffer.from(JSON.stringify(event) + '\n')
  for (let off = 0; off < data.length;) {
    try {
      off += fs.writeSync(EVENTS, data, off)
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e
    }
  }
}

// The cell's output: whatever is written to process.stdout or stderr,
// console included, goes out as it is written.
function capture (stream, name) {
  stream.write = function (chunk, encoding, callback) {
    if (typeof encoding === 'function') {
      callback = encoding
      encoding = undefined
    }
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(encoding || 'utf8')
    if (text) send({ type: name, text })
    if (callback) process.nextTick(callback)
    return true
  }
}
capture(process.stdout, 'stdout')
capture(process.stderr, 'stderr')

let count = 0

function errorEvent (err) {
  if (err instanceof Error || (err && typeof err === 'object' && 'stack' in err)) {
    const stack = typeof err.stack === 'string' ? err.stack.split('\n') : []
    return { type: 'error', name: String(err.name), value: String(err.message), traceback: stack.join('') }
  }
  return { type: 'error', name: typeof err, value: util.inspect(err), traceback: '' }
}

function resultEvent (value) {
  let text
  try {
    text = util.inspect(value)
  } catch (e) {
    text = String(value)
  }
  // The server strips one pair of quotes from every kernel's text.
  if (text.length > 0 && (text[0] === "'" || text[0] === '"') && text[text.length - 1] === text[0]) {
    text = text.slice(1, -1)
  }
  return { type: 'result', text, extra: {}, is_main_result: true }
}

// compile is the cell as a script of the global context, or, when it
// awaits at the top level, as the body of an async function.
function compile (code) {
  try {
    return { script: new vm.Script(code, { filename: 'evalmachine.<anonymous>' }) }
  } catch (err) {
    if (err instanceof SyntaxError && /await is only valid/.test(err.message)) {
      return { script: new vm.Script('(async () => {\n' + code + '\n})()', { filename: 'evalmachine.<anonymous>' }), async: true }
    }
    throw err
  }
}

async function execute (request) {
  count++
  send({ type: 'number_of_executions', execution_count: count })
  const env = request.env_vars || {}
  const saved = {}
  for (const key of Object.keys(env)) {
    saved[key] = process.env[key]
    process.env[key] = String(env[key])
  }
  try {
    const cell = compile(request.code || '')
    let value = cell.script.runInThisContext()
    if (cell.async) value = await value
    send(resultEvent(cell.async ? undefined : value))
  } catch (err) {
    send(errorEvent(err))
  } finally {
    for (const key of Object.keys(saved)) {
      if (saved[key] === undefined) delete process.env[key]
      else process.env[key] = saved[key]
    }
  }
  send({ type: 'end_of_execution' })
}

// Requests are taken one at a time, in order: a cell that awaits holds the
// next one back, as the kernel's execution queue does.
let queue = Promise.resolve()
let pending = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  pending += chunk
  for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
    const line = pending.slice(0, nl)
    pending = pending.slice(nl + 1)
    let request
    try {
      request = JSON.parse(line)
    } catch (e) {
      continue
    }
    queue = queue.then(() => execute(request))
  }
})
process.stdin.on('end', () => queue.then(() => process.exit(0)))
// A promise the code left rejected is the kernel's to report, not to die
// of; so is an error thrown later, from a timer.
process.on('unhandledRejection', (err) => send({ type: 'stderr', text: 'Uncaught ' + util.inspect(err) + '\n' }))
process.on('uncaughtException', (err) => send({ type: 'stderr', text: 'Uncaught ' + util.inspect(err) + '\n' }))

send({ type: 'ready' })
