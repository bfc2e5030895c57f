// A phone another Tandem drives (issue 49, item 1): the window shows who
// drives it and that run live, its state and its steps read from the
// record the other process writes, never this window's own stale end.
// The real dev binary, a `tandem vphone`, and a `tandem run` in a process
// of its own on the same adb server and data folder.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { addModel, artifactsDir, repoRoot, startApp, startPhone } from './harness.mjs'
import { startModelServer, toolCall } from './modelserver.mjs'

let app
let model
let phone

before(async () => {
  model = await startModelServer()
  app = await startApp()
  phone = await startPhone(app.adb.port)
  await addModel(app.page, model.url)
})

after(async () => {
  phone?.proc.kill('SIGKILL')
  await app?.stop()
  await model?.stop()
})

/** until polls f until it holds, or fails with what after ms. */
async function until(f, what, ms = 30_000) {
  const end = Date.now() + ms
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

test('a run in another process is shown live in the window: who drives, its state, its steps; then the phone is free again', async () => {
  const { page } = app
  const row = page.getByTestId(`device-${phone.serial}`)
  await row.waitFor({ timeout: 30_000 })
  await row.click()

  // First a run of the window's own, which ends: its "Done" is what the
  // window must not keep showing once another Tandem drives the phone.
  model.push(toolCall('finish', { summary: 'Nothing to do here.', success: true }))
  await page.getByTestId('goal').fill('Look at the home screen')
  await page.getByTestId('start').click()
  await page.locator('[data-testid="run-state"]', { hasText: 'Done' }).waitFor({ timeout: 30_000 })

  // Then `tandem run` in a process of its own drives the same phone and
  // stops at Pay, waiting on its own terminal.
  model.push(
    toolCall('launch', { app: 'Shop' }, 'Open the shop.'),
    toolCall('tap', { x: 500, y: 908 }, 'Press Pay.'),
    toolCall('finish', { summary: 'Paid from the terminal.', success: true }),
  )
  const bin = process.env.TANDEM_DEV_BIN || join(repoRoot, 'build/bin/tandem-dev')
  const cfg = mkdtempSync(join(tmpdir(), 'tandem-e2e-cli-'))
  let said = ''
  const cli = spawn(bin, ['run', '--device', phone.serial, '--base-url', model.url, '--model', 'scripted-model', '--no-video', '--goal', 'Buy the item in the shop'], {
    env: { ...process.env, ...app.adb.env, TANDEM_CONFIG_DIR: cfg, TANDEM_DATA_DIR: app.dataDir, LANG: 'en_US.UTF-8' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  cli.stdout.on('data', (d) => (said += d))
  cli.stderr.on('data', (d) => (said += d))
  const exited = new Promise((res) => cli.on('exit', res))
  try {
    await until(() => said.includes('allow?'), 'the command line asks before Pay', 60_000)

    // The window says who drives the phone, and what that run is doing.
    const held = page.getByTestId('ctl-held')
    await held.waitFor({ timeout: 15_000 })
    assert.match(await held.innerText(), /tandem run \(process \d+\)/)
    const state = page.getByTestId('ctl-held-state')
    await page.locator('[data-testid="ctl-held-state"][data-state="WaitingForUser"]').waitFor({ timeout: 15_000 })
    assert.equal(await state.innerText(), 'waiting for an answer there')
    // The Steps panel shows that run from its record, not the window's Done.
    await page.getByTestId('timeline-away').waitFor({ timeout: 15_000 })
    const timeline = page.getByTestId('timeline')
    assert.match(await timeline.innerText(), /Buy the item in the shop/)
    assert.doesNotMatch(await timeline.innerText(), /Look at the home screen|Nothing to do here/)
    await until(async () => (await page.getByTestId('step').count()) >= 1, 'the other run\'s first step is listed')
    assert.match(await page.getByTestId('step').first().innerText(), /Shop/i)
    assert.match(await page.getByTestId(`device-held-${phone.serial}`).innerText(), /In use by tandem run/)
    mkdirSync(artifactsDir, { recursive: true })
    await page.screenshot({ path: join(artifactsDir, 'elsewhere-live.png') })

    // The terminal allows; the run ends there and lets the phone go: the
    // window no longer says anyone drives it, nor shows that run as live.
    cli.stdin.write('y\n')
    assert.equal(await exited, 0, said)
    await held.waitFor({ state: 'detached', timeout: 15_000 })
    await page.getByTestId('timeline-away').waitFor({ state: 'detached', timeout: 15_000 })
    assert.doesNotMatch(await page.getByTestId('controls').innerText(), /waiting for an answer there|Driven by/)
  } finally {
    cli.kill('SIGKILL')
    rmSync(cfg, { recursive: true, force: true })
  }
})
