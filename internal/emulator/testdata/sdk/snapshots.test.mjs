// The official E2B SDK's snapshots through abx's local engine, on the
// emulator: createSnapshot, a sandbox made from a snapshot, listSnapshots,
// deleteSnapshot and fork. One line per step: "ok NAME" or "not ok NAME:
// why".
import { Sandbox } from 'e2b'
import { equal, expect, finish, step } from './steps.mjs'

let sbx, snap
await step('createSnapshot, then Sandbox.create(snapshotId): the clone holds the snapshot\'s files', async () => {
  sbx = await Sandbox.create('base')
  await sbx.files.write('/home/user/state.txt', 'v1')
  snap = await sbx.createSnapshot()
  expect(typeof snap.snapshotId === 'string' && snap.snapshotId.length > 0, `snapshot ${JSON.stringify(snap)}`)
  expect(Array.isArray(snap.names), `names ${JSON.stringify(snap.names)}`)
  await sbx.files.write('/home/user/state.txt', 'v2')
  const clone = await Sandbox.create(snap.snapshotId)
  equal(await clone.files.read('/home/user/state.txt'), 'v1', 'the clone\'s file')
  equal(await sbx.files.read('/home/user/state.txt'), 'v2', 'the sandbox\'s own')
  const r = await clone.commands.run('cat /home/user/state.txt')
  equal(r.stdout, 'v1', 'a command in the clone')
  await clone.kill()
})
await step('listSnapshots: the sandbox\'s, and all', async () => {
  const other = await Sandbox.create('base')
  const theirs = await other.createSnapshot()
  const mine = await Sandbox.listSnapshots({ sandboxId: sbx.sandboxId }).nextItems()
  equal(mine.map((s) => s.snapshotId).join(','), snap.snapshotId, 'the sandbox\'s snapshots')
  const all = await Sandbox.listSnapshots().nextItems()
  expect(all.some((s) => s.snapshotId === theirs.snapshotId) && all.length >= 2, `all: ${JSON.stringify(all)}`)
  equal(String(await Sandbox.deleteSnapshot(theirs.snapshotId)), 'true', 'deleteSnapshot')
  await other.kill()
})
await step('fork({count: 2}): two running sandboxes with the sandbox\'s files as they are now', async () => {
  await sbx.files.write('/home/user/state.txt', 'v3')
  const forks = await sbx.fork({ count: 2 })
  equal(String(forks.length), '2', 'forks')
  for (const f of forks) {
    expect(f instanceof Sandbox, `a fork failed: ${f}`)
    equal(await f.files.read('/home/user/state.txt'), 'v3', 'a fork\'s file')
    expect(await f.isRunning(), 'a fork is not running')
    await f.kill()
  }
  expect(await sbx.isRunning(), 'the sandbox stopped')
})
await step('deleteSnapshot: true, then a create from it is refused', async () => {
  equal(String(await Sandbox.deleteSnapshot(snap.snapshotId)), 'true', 'deleteSnapshot')
  let err
  try {
    await Sandbox.create(snap.snapshotId)
  } catch (e) {
    err = e
  }
  expect(err, 'a sandbox made from a deleted snapshot')
  await sbx.kill()
})

finish()
