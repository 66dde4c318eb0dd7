// The official E2B SDKs drive the emulator as they would a sandbox-manager
// cluster. E2B_API_URL and E2B_SANDBOX_URL are the emulator's origin (so the
// SDK routes by E2b-Sandbox-Id/E2b-Sandbox-Port), E2B_API_KEY its key.
//
// One line per step: "ok NAME" or "not ok NAME: why". The v2 create and
// connect routes are refused by sandbox-manager, so they are expected to
// fail; sandboxes are created with POST /sandboxes, as on a cluster.
import { Sandbox as CodeSandbox } from '@e2b/code-interpreter'
import { CommandExitError, Sandbox } from 'e2b'
import { equal, expect, finish, step } from './steps.mjs'

const api = process.env.E2B_API_URL
const key = process.env.E2B_API_KEY

// create makes a sandbox through the route sandbox-manager serves and
// builds the SDK's object from its answer, as Sandbox.connect would.
async function create(Cls, template) {
  const res = await fetch(`${api}/sandboxes`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ templateID: template, timeout: 300, metadata: { suite: 'sdk' } }),
  })
  equal(res.status, 201, 'POST /sandboxes status')
  const s = await res.json()
  return new Cls({
    sandboxId: s.sandboxID,
    envdVersion: s.envdVersion,
    envdAccessToken: s.envdAccessToken,
    sandboxDomain: s.domain || undefined,
  })
}

async function refused(fn, what) {
  let err
  try {
    await fn()
  } catch (e) {
    err = e
  }
  expect(err, `${what} succeeded, but sandbox-manager refuses it`)
}

let sbx
await step('v2 create is refused, as by sandbox-manager', () => refused(() => Sandbox.create('base'), 'Sandbox.create'))
await step('create with POST /sandboxes', async () => {
  sbx = await create(Sandbox, 'base')
  expect(sbx.sandboxId, 'no sandbox ID')
})
await step('v2 connect is refused, as by sandbox-manager', () => refused(() => Sandbox.connect(sbx.sandboxId), 'Sandbox.connect'))

await step('commands: stdout', async () => {
  const r = await sbx.commands.run('echo hello')
  equal(r.stdout, 'hello\n', 'stdout')
  equal(r.exitCode, 0, 'exit code')
})
await step('commands: a failing command raises its exit code', async () => {
  try {
    await sbx.commands.run('echo oops >&2; exit 3')
    throw new Error('no error raised')
  } catch (e) {
    expect(e instanceof CommandExitError, `not a CommandExitError: ${e}`)
    equal(e.exitCode, 3, 'exit code')
    equal(e.stderr, 'oops\n', 'stderr')
  }
})
await step('commands: envs', async () => {
  const r = await sbx.commands.run('echo $GREETING', { envs: { GREETING: 'hi there' } })
  equal(r.stdout, 'hi there\n', 'stdout')
})
if (process.env.SANDBOX_SUDO === '1') {
  // As the SDK's own test of scoped variables runs it.
  await step('commands: envs through sudo', async () => {
    const r = await sbx.commands.run('sudo echo "$FOO"', { envs: { FOO: 'bar' } })
    equal(r.stdout, 'bar\n', 'stdout')
  })
}
await step('commands: cwd', async () => {
  const r = await sbx.commands.run('pwd', { cwd: '/tmp' })
  equal(r.stdout, '/tmp\n', 'stdout')
})
await step('commands: the user, its home and working directory', async () => {
  const r = await sbx.commands.run('whoami; echo $HOME; pwd')
  equal(r.stdout, 'user\n/home/user\n/home/user\n', 'stdout')
})
await step('commands: background, list, kill', async () => {
  const h = await sbx.commands.run('sleep 300', { background: true })
  expect(h.pid > 0, 'no pid')
  const listed = await sbx.commands.list()
  expect(listed.some((p) => p.pid === h.pid), `pid ${h.pid} not listed`)
  expect(await sbx.commands.kill(h.pid), 'kill said no')
})

await step('files: make a directory at an absolute path', async () => {
  expect(await sbx.files.makeDir('/home/user/project'), 'not created')
})
await step('files: text write and read, absolute path', async () => {
  await sbx.files.write('/home/user/project/a.txt', 'some text\n')
  equal(await sbx.files.read('/home/user/project/a.txt'), 'some text\n', 'read')
})
await step('files: relative paths are under /home/user', async () => {
  await sbx.files.write('rel.txt', 'relative')
  equal(await sbx.files.read('/home/user/rel.txt'), 'relative', 'read')
})
await step('files: /tmp, and exec agrees', async () => {
  await sbx.files.write('/tmp/t.txt', 'in tmp')
  equal((await sbx.commands.run('cat /tmp/t.txt')).stdout, 'in tmp', 'cat')
})
await step('files: binary write and read', async () => {
  const bytes = new Uint8Array(256).map((_, i) => i)
  await sbx.files.write('/home/user/project/b.bin', bytes.buffer)
  const got = await sbx.files.read('/home/user/project/b.bin', { format: 'bytes' })
  equal(Buffer.compare(Buffer.from(got), Buffer.from(bytes)), 0, 'bytes')
})
await step('files: list', async () => {
  const names = (await sbx.files.list('/home/user/project')).map((e) => e.name).sort()
  equal(names.join(','), 'a.txt,b.bin', 'names')
})
await step('files: exists', async () => {
  expect(await sbx.files.exists('/home/user/project/a.txt'), 'a.txt missing')
  expect(!(await sbx.files.exists('/home/user/project/nope')), 'nope exists')
})
await step('files: rename', async () => {
  const e = await sbx.files.rename('/home/user/project/a.txt', '/home/user/project/c.txt')
  equal(e.path, '/home/user/project/c.txt', 'path')
})
await step('files: remove', async () => {
  await sbx.files.remove('/home/user/project/c.txt')
  expect(!(await sbx.files.exists('/home/user/project/c.txt')), 'still there')
})

await step('list sandboxes', async () => {
  const items = await Sandbox.list({ query: { metadata: { suite: 'sdk' } } }).nextItems()
  expect(items.some((s) => s.sandboxId === sbx.sandboxId), 'not listed')
})

let code
await step('code: create a code-interpreter sandbox', async () => {
  code = await create(CodeSandbox, 'code-interpreter')
})
await step('code: a value', async () => {
  const ex = await code.runCode('x = 6 * 7\nx')
  equal(ex.text, '42', 'text')
})
await step('code: stdout', async () => {
  const ex = await code.runCode('print("printed")')
  equal(ex.logs.stdout.join(''), 'printed\n', 'stdout')
})
await step('code: an error', async () => {
  const ex = await code.runCode('1/0')
  equal(ex.error && ex.error.name, 'ZeroDivisionError', 'error name')
})
await step('code: a second context does not share variables', async () => {
  const ctx = await code.createCodeContext()
  const ex = await code.runCode('x', { context: ctx })
  equal(ex.error && ex.error.name, 'NameError', 'error name')
})

await step('pause', async () => {
  await code.pause()
  const info = await code.getInfo()
  equal(info.state, 'paused', 'state')
})
await step('kill', async () => {
  await sbx.kill()
  await Sandbox.kill(code.sandboxId)
  const left = await Sandbox.list({ query: { metadata: { suite: 'sdk' } } }).nextItems()
  equal(left.length, 0, 'sandboxes left')
})

finish()
