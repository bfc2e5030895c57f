// Phones on another computer through the real UI and the real Go backend: a
// second private adb server, with its own virtual phone, stands in for
// another computer's. The person adds it in Settings; the device list then
// shows its phone labelled with its host, and a server that is down as a
// line saying so, beside this computer's devices.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp, startADB, startPhone, freePort, artifactsDir } from './harness.mjs'

/** savedServers waits until settings.json holds the wanted adb servers (the UI saves asynchronously). */
async function savedServers(dir, want) {
  const deadline = Date.now() + 5000
  let got
  while (Date.now() < deadline) {
    try {
      got = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).adb_servers
      if (JSON.stringify(got) === JSON.stringify(want)) return
    } catch {
      // not written yet
    }
    await new Promise((r) => setTimeout(r, 25))
  }
  assert.deepEqual(got, want, 'settings.json adb_servers')
}

test("another computer's adb server added in Settings: its phone is listed with its host, a host that is down says so", async () => {
  const local = await startADB()
  const other = await startADB()
  const phone = await startPhone(other.port)
  const down = await freePort()
  const configDir = mkdtempSync(join(tmpdir(), 'tandem-e2e-hosts-'))
  writeFileSync(join(configDir, 'settings.json'), JSON.stringify({ welcome_done: true }))
  const app = await startApp({ adb: local, configDir })
  try {
    const { page } = app
    const host = `127.0.0.1:${other.port}`
    await page.getByTestId('device-desktop:0').waitFor()
    assert.equal(await page.getByTestId(`device-${phone.serial}@${host}`).count(), 0, 'listed before it was added')
    await page.getByTestId('settings').click()
    await page.getByTestId('adb-servers').fill(`${host}\n127.0.0.1:${down}\n`)
    await page.getByTestId('settings-save').click()
    await savedServers(configDir, [host, `127.0.0.1:${down}`])
    const row = page.getByTestId(`device-${phone.serial}@${host}`)
    await row.waitFor({ timeout: 15_000 })
    assert.match(await row.innerText(), new RegExp(`@${host.replaceAll('.', '\\.')}`), 'the phone is labelled with its host')
    const downRow = page.getByTestId(`device-@127.0.0.1:${down}`)
    await downRow.waitFor({ timeout: 15_000 })
    assert.match(await downRow.innerText(), /Nothing answers at 127\.0\.0\.1:\d+/)
    assert.ok(await page.getByTestId('device-desktop:0').isVisible(), "this computer's display is still listed")
    await page.keyboard.press('Escape')
    mkdirSync(artifactsDir, { recursive: true })
    await page.screenshot({ path: join(artifactsDir, 'e2e-hosts.png') })
    assert.deepEqual(app.pageErrors, [])
  } finally {
    await app.stop()
    phone.proc.kill()
    await other.stop()
    await local.stop()
    rmSync(configDir, { recursive: true, force: true })
  }
})
