// The official MCP TypeScript SDK drives `abx mcp serve` as an agent host
// would: over stdio, spawning it, and over Streamable HTTP with a bearer
// token. ABX is the abx to spawn; the ABX_ variables of this process point
// it at an emulator. MCP_URL and MCP_TOKEN are a `abx mcp serve --listen`
// already started by the test on the same emulator. TOOLS and
// READ_ONLY_TOOLS are the server's tools as it lists them itself
// (mcpserver.Tools), comma-separated: what the SDK must see.
//
// One line per step: "ok NAME" or "not ok NAME: why".
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { equal, expect, finish, step } from './steps.mjs'

const abx = process.env.ABX
const httpURL = process.env.MCP_URL
const httpToken = process.env.MCP_TOKEN

const allTools = process.env.TOOLS.split(',')
const readOnly = process.env.READ_ONLY_TOOLS.split(',')
const destructive = ['sandbox_kill', 'process_kill', 'files_write']

// serve spawns `abx mcp serve ARGS...` on stdio and connects a client.
async function serve(...args) {
  const client = new Client({ name: 'abx-sdk-test', version: '1.0.0' })
  // The whole environment: the emulator's variables, HOME, PATH. Its
  // stderr joins this script's, where the test looks for the race
  // detector's reports.
  await client.connect(new StdioClientTransport({
    command: abx,
    args: ['mcp', 'serve', ...args],
    env: { ...process.env },
    stderr: 'inherit',
  }))
  return client
}

// call calls a tool that must succeed; the SDK has already checked its
// structured content against the tool's output schema.
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args })
  if (res.isError) throw new Error(`${name}: tool error ${text(res)}`)
  expect(res.structuredContent, `${name}: no structured content`)
  return res
}

// fails calls a tool that must answer a tool error holding want.
async function fails(client, name, args, want) {
  const res = await client.callTool({ name, arguments: args })
  equal(res.isError, true, `${name} isError (${text(res)})`)
  expect(text(res).includes(want), `${name}: the error ${JSON.stringify(text(res))} does not hold ${want}`)
  return res
}

function text(res) {
  return res.content.filter((c) => c.type === 'text').map((c) => c.text).join('')
}

// dotPNG displays a 1x1 PNG through IPython's display protocol, with no
// library beyond Python's own.
const dotPNG = `import struct, zlib

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

class Dot:
    def _repr_png_(self):
        ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
        return b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\\x00\\x00")) + chunk(b"IEND", b"")

display(Dot())
print("shown")`
const pngMagic = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

// --- stdio ---

let client
let id
await step('stdio: initialize', async () => {
  client = await serve()
  const v = client.getServerVersion()
  equal(v?.name, 'abx', 'server name')
  expect(client.getServerCapabilities()?.tools, 'no tools capability')
})

await step('stdio: listTools has every tool with its schemas and annotations', async () => {
  const { tools } = await client.listTools()
  const byName = new Map(tools.map((t) => [t.name, t]))
  equal([...byName.keys()].sort().join(','), [...allTools].sort().join(','), 'tools')
  for (const t of tools) {
    equal(t.inputSchema?.type, 'object', `${t.name} input schema type`)
    equal(t.outputSchema?.type, 'object', `${t.name} output schema type`)
    expect(t.annotations, `${t.name}: no annotations`)
    equal(t.annotations.readOnlyHint === true, readOnly.includes(t.name), `${t.name} readOnlyHint`)
  }
  for (const name of destructive) {
    const a = byName.get(name).annotations
    equal(a.destructiveHint ?? true, true, `${name} destructiveHint`)
  }
  expect(byName.get('exec').inputSchema.required?.includes('command'), 'exec does not require command')
})

await step('stdio: sandbox_create code-interpreter', async () => {
  const res = await call(client, 'sandbox_create', { template: 'code-interpreter', metadata: { suite: 'mcp-sdk' } })
  id = res.structuredContent.sandboxID
  expect(id, 'no sandboxID')
  equal(res.structuredContent.templateID, 'code-interpreter', 'templateID')
  equal(res.structuredContent.metadata?.suite, 'mcp-sdk', 'metadata')
})

await step('stdio: exec answers stdout, stderr and a non-zero exit code', async () => {
  const res = await call(client, 'exec', { sandbox_id: id, command: 'echo out; echo err >&2; exit 3' })
  const s = res.structuredContent
  equal(s.exitCode, 3, 'exitCode')
  equal(s.stdout, 'out\n', 'stdout')
  equal(s.stderr, 'err\n', 'stderr')
  equal(s.truncated, false, 'truncated')
  expect(text(res).includes('exit code 3'), `text ${JSON.stringify(text(res))}`)
})

await step('stdio: sandbox_run writes files, runs, collects after a failure and kills its sandbox', async () => {
  const res = await call(client, 'sandbox_run', {
    template: 'base',
    files: { 'job/in.txt': 'data\n' },
    command: 'tr a-z A-Z < job/in.txt > job/out.txt; echo ran; exit 4',
    collect: ['job/out.txt', 'job/none.txt'],
  })
  const s = res.structuredContent
  equal(s.exitCode, 4, 'exitCode')
  equal(s.stdout, 'ran\n', 'stdout')
  equal(s.files['job/out.txt'], 'DATA\n', 'collected file')
  expect(s.missing?.length === 1 && s.missing[0].startsWith('job/none.txt: '), `missing ${JSON.stringify(s.missing)}`)
  equal(s.killed, true, 'killed')
  const list = await call(client, 'sandbox_list', {})
  expect(!list.structuredContent.sandboxes.some((b) => b.sandboxID === s.sandboxID), 'the job\'s sandbox is still listed')
})

await step('stdio: files_write and files_read of a text file', async () => {
  const body = 'héllo, mcp\nline 2\n'
  const w = await call(client, 'files_write', { sandbox_id: id, path: 'notes/hello.txt', content: body })
  equal(w.structuredContent.bytes, Buffer.byteLength(body), 'bytes written')
  const r = await call(client, 'files_read', { sandbox_id: id, path: 'notes/hello.txt' })
  equal(r.content[0]?.type, 'text', 'content type')
  equal(text(r), body, 'text read')
  equal(r.structuredContent.binary, false, 'binary')
  equal(r.structuredContent.truncated, false, 'truncated')
})

await step('stdio: files_write content_base64 and files_read a binary file as a resource', async () => {
  const blob = Buffer.from([...pngMagic, 0, 1, 2, 0xfe, 0xff, 0, 0x80])
  const w = await call(client, 'files_write', { sandbox_id: id, path: '/tmp/bin/blob.png', content_base64: blob.toString('base64') })
  equal(w.structuredContent.bytes, blob.length, 'bytes written')
  const r = await call(client, 'files_read', { sandbox_id: id, path: '/tmp/bin/blob.png' })
  const res = r.content.find((c) => c.type === 'resource')
  expect(res, `no resource content in ${JSON.stringify(r.content)}`)
  equal(res.resource.mimeType, 'image/png', 'mimeType')
  expect(typeof res.resource.blob === 'string', 'no blob')
  expect(Buffer.from(res.resource.blob, 'base64').equals(blob), 'the bytes read differ from those written')
  equal(r.structuredContent.binary, true, 'binary')
  equal(r.structuredContent.bytes, blob.length, 'bytes')
})

await step('stdio: sandbox_metrics', async () => {
  const r = await call(client, 'sandbox_metrics', { sandbox_id: id })
  const m = r.structuredContent
  equal(m.sandboxID, id, 'sandboxID')
  equal(m.state, 'running', 'state')
  expect(m.cpuCount >= 1, `cpuCount ${m.cpuCount}`)
  expect(m.cpuUsedPct >= 0 && m.cpuUsedPct <= 100, `cpuUsedPct ${m.cpuUsedPct}`)
  expect(m.memUsed > 0 && m.memUsed <= m.memTotal, `memUsed ${m.memUsed} of ${m.memTotal}`)
  expect(m.diskUsed >= 0 && m.diskUsed <= m.diskTotal, `diskUsed ${m.diskUsed} of ${m.diskTotal}`)
})

await step('stdio: files_list', async () => {
  const r = await call(client, 'files_list', { sandbox_id: id, path: '/tmp/bin' })
  const e = r.structuredContent.entries
  equal(e.length, 1, 'entries')
  equal(e[0].name, 'blob.png', 'name')
  equal(e[0].type, 'file', 'type')
  equal(e[0].size, 15, 'size')
  equal(r.structuredContent.truncated, false, 'truncated')
})

await step('stdio: run_code keeps state across calls', async () => {
  await call(client, 'run_code', { sandbox_id: id, code: 'x = 1' })
  const r = await call(client, 'run_code', { sandbox_id: id, code: 'x + 1', language: 'python' })
  const main = r.structuredContent.results.find((x) => x.isMainResult)
  equal(main?.text, '2', 'main result')
  equal(text(r), '2', 'text')
})

await step('stdio: run_code answers an image as image content', async () => {
  const r = await call(client, 'run_code', { sandbox_id: id, code: dotPNG })
  const img = r.content.find((c) => c.type === 'image')
  expect(img, `no image content in ${JSON.stringify(r.content)}`)
  equal(img.mimeType, 'image/png', 'mimeType')
  expect(Buffer.from(img.data, 'base64').subarray(0, 8).equals(pngMagic), 'not a PNG')
  expect(r.structuredContent.results[0]?.formats.includes('png'), 'formats lack png')
  expect(text(r).includes('shown'), `text ${JSON.stringify(text(r))}`)
})

await step('stdio: run_code answers an exception as a tool error with its traceback', async () => {
  const r = await fails(client, 'run_code', { sandbox_id: id, code: 'print("before")\nraise ValueError("boom")' }, 'ValueError: boom')
  expect(text(r).includes('before'), `text ${JSON.stringify(text(r))} lacks the output`)
  expect(text(r).includes('Traceback (most recent call last)'), `text ${JSON.stringify(text(r))} lacks the traceback`)
  equal(r.structuredContent?.error?.name, 'ValueError', 'structured error name')
  expect(r.structuredContent.error.traceback, 'no structured traceback')
})

await step('stdio: a missing sandbox is a tool error E3001', async () => {
  const missing = id.replace(/[^-]+$/, 'nosuch')
  expect(missing !== id, `cannot make a missing ID from ${id}`)
  await fails(client, 'sandbox_info', { sandbox_id: missing }, 'E3001')
  await fails(client, 'exec', { sandbox_id: missing, command: 'true' }, 'E3001')
})

await step('stdio: 20 MB of output is capped at 256 KiB', async () => {
  const r = await call(client, 'exec', { sandbox_id: id, command: "head -c 20000000 /dev/zero | tr '\\0' a" })
  const s = r.structuredContent
  equal(s.truncated, true, 'truncated')
  equal(s.exitCode, 0, 'exitCode')
  expect(s.stdout.length > 0 && s.stdout.length <= 256 * 1024, `stdout of ${s.stdout.length} bytes`)
  expect(/^a+$/.test(s.stdout), 'stdout is not the command\'s')
})

let pinned
await step('stdio --sandbox: no lifecycle tools', async () => {
  pinned = await serve('--sandbox', id)
  const { tools } = await pinned.listTools()
  const names = tools.map((t) => t.name)
  for (const gone of ['sandbox_create', 'sandbox_kill', 'sandbox_list', 'sandbox_pause', 'sandbox_resume']) {
    expect(!names.includes(gone), `${gone} is offered`)
  }
  for (const kept of ['exec', 'files_read', 'sandbox_info', 'run_code']) {
    expect(names.includes(kept), `${kept} is not offered`)
  }
  for (const t of tools) {
    expect(!(t.inputSchema.properties && 'sandbox_id' in t.inputSchema.properties), `${t.name} takes sandbox_id`)
  }
})

await step('stdio --sandbox: exec works on the pinned sandbox', async () => {
  await call(pinned, 'files_write', { path: '/tmp/pinned.txt', content: 'pinned\n' })
  const r = await call(pinned, 'exec', { command: 'cat /tmp/pinned.txt' })
  equal(r.structuredContent.stdout, 'pinned\n', 'stdout')
  // The file is in the sandbox the first server made.
  const back = await call(client, 'files_read', { sandbox_id: id, path: '/tmp/pinned.txt' })
  equal(text(back), 'pinned\n', 'read through the first server')
})

await step('stdio --sandbox: a sandbox_id is refused', async () => {
  const res = await pinned.callTool({ name: 'exec', arguments: { sandbox_id: id, command: 'true' } })
  equal(res.isError, true, `isError (${text(res)})`)
  expect(text(res).includes('sandbox_id'), `error ${JSON.stringify(text(res))} does not name sandbox_id`)
  await pinned.close()
})

await step('stdio: sandbox_kill', async () => {
  const r = await call(client, 'sandbox_kill', { sandbox_id: id })
  equal(r.structuredContent.sandboxID, id, 'sandboxID')
  await fails(client, 'sandbox_info', { sandbox_id: id }, 'E3001')
  await client.close()
})

// --- Streamable HTTP ---

const initialize = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})

async function rawPost(headers) {
  const res = await fetch(httpURL, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: initialize,
  })
  await res.body?.cancel()
  return res
}

await step('http: a request without the token is 401 with WWW-Authenticate: Bearer', async () => {
  const res = await rawPost({})
  equal(res.status, 401, 'status')
  expect(/^Bearer\b/i.test(res.headers.get('www-authenticate') ?? ''), `WWW-Authenticate ${res.headers.get('www-authenticate')}`)
})

await step('http: a request with a wrong token is 401', async () => {
  const res = await rawPost({ Authorization: `Bearer ${httpToken}x` })
  equal(res.status, 401, 'status')
  expect(/^Bearer\b/i.test(res.headers.get('www-authenticate') ?? ''), `WWW-Authenticate ${res.headers.get('www-authenticate')}`)
})

await step('http: the SDK client cannot connect without the token', async () => {
  const c = new Client({ name: 'abx-sdk-test', version: '1.0.0' })
  let err
  try {
    await c.connect(new StreamableHTTPClientTransport(new URL(httpURL)))
  } catch (e) {
    err = e
  }
  await c.close()
  expect(err, 'connected without a token')
  equal(err.code, 401, `error ${err}`)
})

let web
let webID
await step('http: initialize and listTools with the token', async () => {
  web = new Client({ name: 'abx-sdk-test', version: '1.0.0' })
  await web.connect(new StreamableHTTPClientTransport(new URL(httpURL), {
    requestInit: { headers: { Authorization: `Bearer ${httpToken}` } },
  }))
  equal(web.getServerVersion()?.name, 'abx', 'server name')
  const { tools } = await web.listTools()
  equal(tools.length, allTools.length, 'tools')
})

await step('http: sandbox_create, exec and sandbox_kill', async () => {
  const c = await call(web, 'sandbox_create', { template: 'base' })
  webID = c.structuredContent.sandboxID
  expect(webID, 'no sandboxID')
  const x = await call(web, 'exec', { sandbox_id: webID, command: 'echo over http; exit 4' })
  equal(x.structuredContent.stdout, 'over http\n', 'stdout')
  equal(x.structuredContent.exitCode, 4, 'exitCode')
  const k = await call(web, 'sandbox_kill', { sandbox_id: webID })
  equal(k.structuredContent.sandboxID, webID, 'sandboxID')
  await fails(web, 'sandbox_info', { sandbox_id: webID }, 'E3001')
  await web.close()
})

finish()
