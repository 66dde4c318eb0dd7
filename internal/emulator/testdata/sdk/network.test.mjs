// The official E2B SDK through abx's local engine: which ports a plain
// client reaches without a token, egress rules at create, and the network
// routes the engine does not serve yet. One line per step: "ok NAME" or
// "not ok NAME: why". SERVE_PORT is a free port for a server in the
// sandbox (where sandboxes are not isolated they share this machine's
// network); OWN_NETWORKS=1 says that every sandbox has a network of its
// own.
import { Sandbox } from 'e2b'
import http from 'node:http'
import { equal, expect, finish, step } from './steps.mjs'

const servePort = Number(process.env.SERVE_PORT)
if (!servePort) throw new Error('set SERVE_PORT to a free port')

// get fetches /index.html from port servePort of sbx as a browser would:
// through the engine, naming the host getHost gives.
const get = (sbx, headers = {}) => new Promise((resolve) => {
  const host = sbx.getHost(servePort)
  const port = Number(host.split(':').pop())
  const req = http.request({ host: '127.0.0.1', port, path: '/index.html', headers: { Host: host, ...headers } }, (res) => {
    let b = ''
    res.on('data', (c) => (b += c))
    res.on('end', () => resolve({ status: res.statusCode, body: b }))
  })
  req.on('error', (e) => resolve({ status: 0, body: `${e}` }))
  req.end()
})

// serve starts a web server in sbx and waits until it answers with the
// sandbox's token.
const serve = async (sbx, text) => {
  await sbx.files.write('/home/user/www/index.html', text)
  const server = await sbx.commands.run(`python3 -m http.server ${servePort} --bind 127.0.0.1 --directory /home/user/www`, { background: true })
  let got = { status: 0 }
  for (let i = 0; i < 100 && got.status !== 200; i++) {
    got = await get(sbx, { 'E2B-Traffic-Access-Token': sbx.trafficAccessToken })
    if (got.status !== 200) await new Promise((r) => setTimeout(r, 100))
  }
  equal(got.body, text, 'with the token')
  return server
}

await step('an unguarded sandbox: getHost, then a plain fetch', async () => {
  const sbx = await Sandbox.create('base')
  const server = await serve(sbx, 'open\n')
  const bare = await get(sbx)
  equal(bare.status, 200, 'status without a token')
  equal(bare.body, 'open\n', 'body without a token')
  await sbx.commands.kill(server.pid)
  await sbx.kill()
})
await step('allowPublicTraffic false: a fetch needs the traffic token', async () => {
  const sbx = await Sandbox.create('base', { network: { allowPublicTraffic: false } })
  const server = await serve(sbx, 'private\n')
  equal((await get(sbx)).status, 401, 'status without a token')
  equal((await get(sbx, { 'E2B-Traffic-Access-Token': 'wrong' })).status, 401, 'status with a wrong token')
  equal((await sbx.getInfo()).network?.allowPublicTraffic, false, 'getInfo().network.allowPublicTraffic')
  await sbx.commands.kill(server.pid)
  await sbx.kill()
})
await step('a sandbox the cluster guards: a fetch needs the traffic token', async () => {
  const sbx = await Sandbox.create('base', { metadata: { 'security.agents.kruise.io/enable-jwt-auth': 'true' } })
  const server = await serve(sbx, 'guarded\n')
  equal((await get(sbx)).status, 401, 'status without a token')
  await sbx.commands.kill(server.pid)
  await sbx.kill()
})
if (process.env.OWN_NETWORKS === '1') {
  await step('two sandboxes, with internet and without, serve the same port, each its own page', async () => {
    const a = await Sandbox.create('base')
    const b = await Sandbox.create('base', { allowInternetAccess: false })
    const servers = [await serve(a, 'from a\n'), await serve(b, 'from b\n')]
    equal((await get(a)).body, 'from a\n', "a's page")
    equal((await get(b)).body, 'from b\n', "b's page")
    await a.commands.kill(servers[0].pid)
    await b.commands.kill(servers[1].pid)
    await a.kill()
    await b.kill()
  })
}
await step('denyOut at create reaches the provider, and getInfo tells it', async () => {
  const sbx = await Sandbox.create('base', { network: { denyOut: ['0.0.0.0/0'], allowOut: ['10.0.0.0/8'] }, metadata: { egress: 'locked' } })
  const info = await sbx.getInfo()
  equal(JSON.stringify(info.network?.denyOut), '["0.0.0.0/0"]', 'denyOut')
  equal(JSON.stringify(info.network?.allowOut), '["10.0.0.0/8"]', 'allowOut')
  equal(info.network?.allowPublicTraffic, true, 'allowPublicTraffic')
  // left running: the test reads the rules the provider holds
})
await step('egress rules the cluster refuses are refused before anything is made', async () => {
  let err
  try {
    await Sandbox.create('base', { network: { denyOut: ['example.com'] } })
  } catch (e) {
    err = e
  }
  expect(err, 'created with a domain in denyOut')
  expect(/400/.test(String(err)) && /denyOut/.test(String(err)), `error ${err}`)
})
await step('updateNetwork: 501 E8004, never "not found"', async () => {
  const sbx = await Sandbox.create('base')
  for (const [name, call] of [['updateNetwork', () => sbx.updateNetwork({ denyOut: ['0.0.0.0/0'] })]]) {
    let err
    try {
      await call()
    } catch (e) {
      err = e
    }
    expect(err, `${name} succeeded`)
    expect(!/not found/i.test(String(err)) && /501/.test(String(err)) && /does not offer/.test(String(err)), `${name}: ${err}`)
  }
  await sbx.kill()
})

finish()
