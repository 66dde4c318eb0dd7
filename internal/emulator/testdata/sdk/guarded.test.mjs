// The official E2B SDKs through abx's local engine, on a cluster that
// guards sandboxes with traffic tokens that live a second: the SDKs know
// nothing of them (they are handed the engine's token), and the engine
// keeps the sandbox's own fresh, so commands, files and code keep working
// past several expiries. One line per step: "ok NAME" or "not ok NAME: why".
import { Sandbox as CodeSandbox } from '@e2b/code-interpreter'
import { equal, expect, finish, step } from './steps.mjs'

const guarded = { 'security.agents.kruise.io/enable-jwt-auth': 'true' }
const pause = (ms) => new Promise((r) => setTimeout(r, ms))
let sbx
await step('create a guarded sandbox', async () => {
  sbx = await CodeSandbox.create('code-interpreter', { metadata: guarded, timeoutMs: 300_000 })
  expect(sbx.sandboxId, 'no sandbox ID')
})
for (const round of [1, 2, 3]) {
  await step(`round ${round}: commands, files and code`, async () => {
    equal((await sbx.commands.run(`echo round ${round}`)).stdout, `round ${round}\n`, 'stdout')
    await sbx.files.write('/home/user/round.txt', `file ${round}`)
    equal(await sbx.files.read('/home/user/round.txt'), `file ${round}`, 'file')
    equal((await sbx.runCode(`${round} * 2`)).text, String(round * 2), 'code')
  })
  // Past the token the engine holds: the subject of the test.
  await pause(1200)
}
await step('a command that outlives a token streams to its end', async () => {
  const r = await sbx.commands.run('for i in 1 2 3; do echo $i; sleep 0.6; done')
  equal(r.stdout, '1\n2\n3\n', 'stdout')
})
await step('kill', async () => {
  await sbx.kill()
})

finish()
