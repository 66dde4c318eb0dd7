// The official E2B SDKs through abx's local engine, as a user would write
// them: the engine's environment (E2B_API_URL, E2B_SANDBOX_URL,
// E2B_API_KEY, E2B_DOMAIN) is all they are given.
// One line per step: "ok NAME" or "not ok NAME: why".
// SERVE_PORT is the port a server in the sandbox listens on: the emulator's
// sandboxes share this machine's network, so runs side by side each need
// one of their own.
import { Sandbox as CodeSandbox } from '@e2b/code-interpreter'
import { CommandExitError, Sandbox } from 'e2b'
import http from 'node:http'
import { equal, expect, finish, step } from './steps.mjs'


const servePort = Number(process.env.SERVE_PORT)
if (!servePort) throw new Error('set SERVE_PORT to a free port')
const tag = { suite: 'engine', run: String(process.pid) }
let sbx
await step('Sandbox.create with metadata and envs', async () => {
  sbx = await Sandbox.create('base', { metadata: tag, envs: { FROM_CREATE: 'yes' }, timeoutMs: 300_000 })
  expect(sbx.sandboxId, 'no sandbox ID')
})
await step('getInfo', async () => {
  const info = await sbx.getInfo()
  equal(info.sandboxId, sbx.sandboxId, 'sandbox ID')
  equal(info.metadata.suite, 'engine', 'metadata')
})
await step('list with a metadata filter, over two pages', async () => {
  const other = await Sandbox.create('base', { metadata: tag })
  const pager = Sandbox.list({ query: { metadata: tag }, limit: 1 })
  const first = await pager.nextItems()
  equal(first.length, 1, 'first page')
  expect(pager.hasNext, 'no second page')
  const second = await pager.nextItems()
  equal(second.length, 1, 'second page')
  const ids = [first[0].sandboxId, second[0].sandboxId].sort()
  equal(ids.join(','), [sbx.sandboxId, other.sandboxId].sort().join(','), 'ids')
  await other.kill()
})
await step('list: newest first by default, in order across pages, by start time and template', async () => {
  const own = { suite: 'engine-order', run: String(process.pid) }
  const a = await Sandbox.create('base', { metadata: own })
  const since = new Date()
  await new Promise((r) => setTimeout(r, 20))
  const b = await Sandbox.create('base', { metadata: own })
  const c = await Sandbox.create('code-interpreter', { metadata: own })
  const ids = async (opts) => {
    const pager = Sandbox.list({ ...opts, query: { metadata: own, ...(opts.query || {}) } })
    const got = []
    while (pager.hasNext) got.push(...(await pager.nextItems()).map((s) => s.sandboxId))
    return got.join(',')
  }
  equal(await ids({}), [c, b, a].map((s) => s.sandboxId).join(','), 'default order')
  equal(await ids({ order: 'asc', limit: 1 }), [a, b, c].map((s) => s.sandboxId).join(','), 'ascending, a page each')
  equal(await ids({ order: 'desc', limit: 2 }), [c, b, a].map((s) => s.sandboxId).join(','), 'descending, two a page')
  equal(await ids({ query: { startedAfter: since } }), [c, b].map((s) => s.sandboxId).join(','), 'startedAfter')
  equal(await ids({ query: { template: 'code-interpreter' } }), c.sandboxId, 'template')
  for (const s of [a, b, c]) await s.kill()
})
await step('files: several files in one write', async () => {
  const infos = await sbx.files.write([
    { path: '/home/user/many/one.txt', data: 'one' },
    { path: '/home/user/many/two.txt', data: 'two' },
  ])
  equal(infos.map((i) => i.path).sort().join(','), '/home/user/many/one.txt,/home/user/many/two.txt', 'written')
  equal(await sbx.files.read('/home/user/many/two.txt'), 'two', 'two')
})
await step('files: a directory\'s mode is its permission bits', async () => {
  await sbx.files.makeDir('/home/user/modes')
  await sbx.commands.run('chmod 750 /home/user/modes')
  const info = await sbx.files.getInfo('/home/user/modes')
  equal(info.type, 'dir', 'type')
  equal(info.mode, 0o750, 'mode')
})
await step('setTimeout', async () => {
  await sbx.setTimeout(600_000)
})
await step('commands: stdout and the create envs', async () => {
  const r = await sbx.commands.run('echo $FROM_CREATE')
  equal(r.stdout, 'yes\n', 'stdout')
})
await step('commands: exit error', async () => {
  try {
    await sbx.commands.run('exit 4')
    throw new Error('no error')
  } catch (e) {
    expect(e instanceof CommandExitError, `${e}`)
    equal(e.exitCode, 4, 'exit code')
  }
})
await step('commands: envs and cwd', async () => {
  const r = await sbx.commands.run('echo $X; pwd', { envs: { X: 'x' }, cwd: '/tmp' })
  equal(r.stdout, 'x\n/tmp\n', 'stdout')
})
await step('commands: background, list, kill', async () => {
  const h = await sbx.commands.run('sleep 300', { background: true })
  expect((await sbx.commands.list()).some((p) => p.pid === h.pid), 'not listed')
  expect(await sbx.commands.kill(h.pid), 'not killed')
})
await step('files: make dir, text and 1 MiB binary, list, exists, rename, remove', async () => {
  await sbx.files.makeDir('/home/user/d')
  await sbx.files.write('/home/user/d/t.txt', 'text')
  equal(await sbx.files.read('/home/user/d/t.txt'), 'text', 'text')
  const big = new Uint8Array(1 << 20).map((_, i) => (i * 7) & 255)
  await sbx.files.write('/home/user/d/b.bin', big.buffer)
  const back = await sbx.files.read('/home/user/d/b.bin', { format: 'bytes' })
  equal(Buffer.compare(Buffer.from(back), Buffer.from(big)), 0, 'binary')
  equal((await sbx.files.list('/home/user/d')).map((e) => e.name).sort().join(','), 'b.bin,t.txt', 'list')
  expect(await sbx.files.exists('/home/user/d/t.txt'), 'exists')
  await sbx.files.rename('/home/user/d/t.txt', '/home/user/d/u.txt')
  await sbx.files.remove('/home/user/d/u.txt')
  expect(!(await sbx.files.exists('/home/user/d/u.txt')), 'removed')
})
await step('files: watchDir tells a file made in a subdirectory (recursive)', async () => {
  await sbx.files.makeDir('/home/user/watched/sub')
  const seen = []
  let told
  const created = new Promise((resolve) => (told = resolve))
  const handle = await sbx.files.watchDir('/home/user/watched', (e) => {
    seen.push(`${e.type} ${e.name}`)
    if (e.type === 'create' && e.name === 'sub/new.txt') told()
  }, { recursive: true })
  try {
    await sbx.commands.run('echo hi > /home/user/watched/sub/new.txt')
    let timer
    const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no create sub/new.txt; saw ${seen.join(', ')}`)), 30_000)))
    await Promise.race([created, late]).finally(() => clearTimeout(timer))
  } finally {
    await handle.stop()
  }
})
await step('pty: create, sendInput, resize, the exit code', async () => {
  let screen = ''
  const dec = new TextDecoder()
  const term = await sbx.pty.create({ cols: 80, rows: 24, onData: (d) => { screen += dec.decode(d) } })
  const shows = async (what) => {
    for (let i = 0; i < 600 && !screen.includes(what); i++) await new Promise((r) => setTimeout(r, 50))
    expect(screen.includes(what), `the terminal shows ${what}; it shows ${JSON.stringify(screen.slice(-300))}`)
  }
  const enc = new TextEncoder()
  await sbx.pty.sendInput(term.pid, enc.encode('stty size; echo $((6*7))-typed\r'))
  await shows('24 80')
  await shows('42-typed')
  await sbx.pty.resize(term.pid, { cols: 100, rows: 30 })
  await sbx.pty.sendInput(term.pid, enc.encode('stty size; exit 3\r'))
  await shows('30 100')
  const end = await term.wait().catch((e) => e)
  expect(end.exitCode === 3, `exit code ${end.exitCode}`)
})
await step('getMetrics: one current sample, which start and end filter', async () => {
  const sane = (m, what) => {
    expect(m.timestamp instanceof Date && Math.abs(m.timestamp.getTime() - Date.now()) < 300_000, `${what}: timestamp ${m.timestamp}`)
    expect(Number.isInteger(m.cpuCount) && m.cpuCount >= 1, `${what}: cpuCount ${m.cpuCount}`)
    expect(m.cpuUsedPct >= 0 && m.cpuUsedPct <= 100, `${what}: cpuUsedPct ${m.cpuUsedPct}`)
    expect(m.memTotal > 0 && m.memUsed > 0 && m.memUsed <= m.memTotal, `${what}: memory ${m.memUsed}/${m.memTotal}`)
    expect(m.memCache >= 0, `${what}: memCache ${m.memCache}`)
    expect(m.diskTotal > 0 && m.diskUsed >= 0 && m.diskUsed <= m.diskTotal, `${what}: disk ${m.diskUsed}/${m.diskTotal}`)
  }
  const now = await sbx.getMetrics()
  equal(now.length, 1, 'samples')
  sane(now[0], 'getMetrics()')
  const around = await sbx.getMetrics({ start: new Date(Date.now() - 600_000), end: new Date(Date.now() + 600_000) })
  equal(around.length, 1, 'samples between start and end')
  sane(around[0], 'getMetrics({start, end})')
  const byId = await Sandbox.getMetrics(sbx.sandboxId)
  equal(byId.length, 1, 'samples of Sandbox.getMetrics(id)')
  equal((await sbx.getMetrics({ start: new Date(Date.now() + 3_600_000) })).length, 0, 'samples after an hour from now')
})
await step('getHost: a server started in the sandbox answers through the engine, with the traffic token or without', async () => {
  await sbx.files.write('/home/user/www/index.html', 'hello from the sandbox\n')
  const server = await sbx.commands.run(`python3 -m http.server ${servePort} --bind 127.0.0.1 --directory /home/user/www`, { background: true })
  const host = sbx.getHost(servePort)
  expect(host.startsWith(`${servePort}-${sbx.sandboxId}.localhost:`), `host ${host}`)
  // *.localhost is loopback (RFC 6761), but not every resolver says so:
  // connect to the engine and name the host, as a browser would.
  const port = Number(host.split(':').pop())
  const get = (headers) => new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/index.html', headers: { Host: host, ...headers } }, (res) => {
      let b = ''
      res.on('data', (c) => (b += c))
      res.on('end', () => resolve({ status: res.statusCode, body: b }))
    })
    req.on('error', (e) => resolve({ status: 0, body: `${e}` }))
    req.end()
  })
  // The engine hands out its token as the sandbox's traffic token, which
  // opens every port of the sandbox, as E2B's does for a sandbox whose
  // traffic is not public.
  expect(sbx.trafficAccessToken, 'no traffic token')
  let got = { status: 0 }
  for (let i = 0; i < 100 && got.status !== 200; i++) {
    got = await get({ 'E2B-Traffic-Access-Token': sbx.trafficAccessToken })
    if (got.status !== 200) await new Promise((r) => setTimeout(r, 100))
  }
  equal(got.body, 'hello from the sandbox\n', 'body')
  // Without it too: the sandbox's traffic is not guarded, and a browser
  // reaches its servers as it would on the cluster (network.test.mjs tells
  // the guarded cases).
  const bare = await get({})
  equal(bare.status, 200, 'status without a token')
  await sbx.commands.kill(server.pid)
})
await step('pause, isRunning, connect resumes', async () => {
  equal(await sbx.pause(), true, 'the first pause')
  equal(await sbx.pause(), false, 'a second pause (E2B answers 409)')
  expect(!(await sbx.isRunning()), 'running after pause')
  equal((await Sandbox.getMetrics(sbx.sandboxId)).length, 0, 'samples of a paused sandbox')
  const again = await Sandbox.connect(sbx.sandboxId)
  equal((await again.commands.run('echo back')).stdout, 'back\n', 'after connect')
})
await step('a sandbox killed under a running command: the command fails, isRunning is false', async () => {
  const victim = await Sandbox.create('base', { metadata: tag })
  const running = victim.commands.run('sleep 60').then(() => new Error('the command ended'), (e) => e)
  await new Promise((r) => setTimeout(r, 500))
  await victim.kill()
  const got = await running
  expect(!(got instanceof CommandExitError) && got.message !== 'the command ended', `the command ended with ${got}`)
  equal(await victim.isRunning(), false, 'isRunning after the kill')
})
await step('kill', async () => {
  await sbx.kill()
  const left = await Sandbox.list({ query: { metadata: tag } }).nextItems()
  equal(left.length, 0, 'left')
})

let code
await step('CodeInterpreter.create with the default template (code-interpreter-v1)', async () => {
  code = await CodeSandbox.create({ metadata: tag })
})
await step('runCode: value, stdout, error', async () => {
  equal((await code.runCode('6 * 7')).text, '42', 'value')
  equal((await code.runCode('"it\'s"')).text, "it's", 'a string quoted with " loses its quotes')
  equal((await code.runCode('print("p")')).logs.stdout.join(''), 'p\n', 'stdout')
  equal((await code.runCode('1/0')).error.name, 'ZeroDivisionError', 'error')
})
await step('createCodeContext', async () => {
  await code.runCode('y = 1')
  const ctx = await code.createCodeContext()
  equal((await code.runCode('y', { context: ctx })).error.name, 'NameError', 'isolated')
  await code.kill()
})

finish()
