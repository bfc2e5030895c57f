// Chores (issue 51) through the real UI and the real Go backend, on two
// virtual phones behind one private adb server: a finished task is saved
// as a chore from History, run now on both phones at once with no model
// call (a replay of its steps, each phone its own run, each tap on its own
// phone, read from the phones' own input logs), then given a schedule
// that the list shows; a chore with a parameter runs with the value typed
// in the form.
import { test, before, after, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { addModel, startApp, startPhone, phoneEvents, artifactsDir } from './harness.mjs'
import { startModelServer, toolCall } from './modelserver.mjs'

let app
let model
let logs
const phones = []

before(async () => {
  model = await startModelServer()
  app = await startApp()
  logs = mkdtempSync(join(tmpdir(), 'tandem-e2e-chores-'))
  for (let i = 0; i < 2; i++) {
    const events = join(logs, `phone${i}.jsonl`)
    phones.push({ ...(await startPhone(app.adb.port, { events })), events })
  }
  for (const p of phones) adb(p.serial, 'shell', 'monkey', '-p', 'com.tandem.counter', '1')
  const { page } = app
  await addModel(page, model.url)
  await page.getByTestId('welcome-done').click()
  for (const p of phones) await page.getByTestId(`device-${p.serial}`).waitFor({ timeout: 30_000 })
})

after(async () => {
  for (const p of phones) p.proc.kill('SIGKILL')
  await app?.stop()
  await model?.stop()
  if (logs) rmSync(logs, { recursive: true, force: true })
})

// A test that fails with a dialog open must not leave it over the next
// test's clicks.
afterEach(async () => {
  for (let i = 0; i < 3 && app && (await app.page.locator('[role="dialog"]').count()) > 0; i++) await app.page.keyboard.press('Escape').catch(() => {})
})

function adb(serial, ...args) {
  return execFileSync('adb', ['-P', String(app.adb.port), '-s', serial, ...args], { env: { ...process.env, ...app.adb.env }, encoding: 'utf8' })
}

const taps = (p) => phoneEvents(p.events).filter((e) => e.kind === 'tap').length

async function until(ok, what, ms = 30_000) {
  for (const deadline = Date.now() + ms; !(await ok()); ) {
    if (Date.now() > deadline) throw new Error(`waited ${ms / 1000} s for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

test('a finished task saved as a chore runs on two phones at once without the model, then gets a schedule', { timeout: 180_000 }, async () => {
  const { page } = app
  // The task, on the first phone, with the model.
  await page.getByTestId(`device-${phones[0].serial}`).click()
  model.push(toolCall('tap', { x: 703, y: 500 }, 'Tap +1 once.'), toolCall('finish', { summary: 'The counter shows 1.', success: true }))
  await page.getByTestId('goal').fill('Add one to the counter')
  await page.getByTestId('start').click()
  await page.getByTestId('result-card').waitFor({ timeout: 60_000 })
  assert.equal(taps(phones[0]), 1)
  const asked = model.requests.length

  // History: the run, Save as chore.
  await page.getByTestId('history').click()
  const history = page.getByTestId('history-dialog')
  await history.locator('[data-testid^="view-"]').first().click()
  await history.getByTestId('save-chore').click()
  const dialog = page.getByTestId('chores-dialog')
  await dialog.getByTestId('chore-form').waitFor()
  // The draft is made from the run by Go: the form fills when it comes.
  await page.waitForFunction(() => document.querySelector('[data-testid="chore-goal"]')?.value !== '', null, { timeout: 30_000 })
  assert.equal(await dialog.getByTestId('chore-goal').inputValue(), 'Add one to the counter')
  await dialog.getByTestId('chore-replays').waitFor()
  await dialog.getByTestId('chore-name').fill('Count one')
  // Run now on both phones: saved first, then one run each.
  for (const p of phones) await dialog.locator(`[data-testid="chore-run-on"] input[data-device="${p.serial}"]`).check()
  await dialog.getByTestId('chore-run').click()
  await dialog.getByTestId('chores-message').filter({ hasText: 'Started on' }).waitFor({ timeout: 30_000 })
  await until(() => taps(phones[0]) === 2 && taps(phones[1]) === 1, 'a replayed +1 on each phone')
  await dialog.locator('[data-testid="chore-item"][data-name="Count one"]').waitFor()
  await page.screenshot({ path: join(artifactsDir, 'e2e-chores-run.png') })

  // A schedule: every day at 07:30 on every ready phone, shown in the list.
  await dialog.getByTestId('chore-kind').selectOption('daily')
  await dialog.getByTestId('chore-at').fill('07:30')
  await dialog.getByTestId('chore-save').click()
  await dialog.locator('[data-testid="chore-item"][data-name="Count one"]').filter({ hasText: 'every day at 07:30' }).waitFor()
  await page.screenshot({ path: join(artifactsDir, 'e2e-chores-schedule.png') })
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached' })

  // Both runs ended Done, replayed, with no model call.
  await until(async () => {
    const runs = await page.evaluate(() => window.go.app.HistoryAPI.PastRuns())
    return runs.filter((r) => r.state === 'Done').length === 3
  }, 'three finished runs in History')
  assert.equal(model.requests.length, asked, 'the chore asked the model')

  // A chore with a parameter from the goal box's own words: its value is
  // what the form says when it runs.
  await page.getByTestId('chores').click()
  await dialog.getByTestId('chore-new').click()
  await dialog.getByTestId('chore-name').fill('Note')
  await dialog.getByTestId('chore-goal').fill('Write {text} in Notes')
  await dialog.getByTestId('param-add').click()
  await dialog.getByTestId('param-name').fill('text')
  await dialog.getByTestId('param-value').fill('牛奶')
  await dialog.locator(`[data-testid="chore-run-on"] input[data-device="${phones[1].serial}"]`).check()
  await dialog.locator(`[data-testid="chore-run-on"] input[data-device="${phones[0].serial}"]`).uncheck()
  const from = model.requests.length
  model.push(toolCall('finish', { summary: 'Nothing to do.', success: true }))
  await dialog.getByTestId('chore-run').click()
  await until(() => model.requests.length > from, 'the model asked about the note').catch(async (e) => {
    await page.screenshot({ path: join(artifactsDir, 'e2e-chores-failed.png') })
    e.message += ` (the view says: ${await dialog.getByTestId('chores-message').innerText().catch(() => 'nothing')}; page errors: ${app.pageErrors.map(String).join(' / ')}; log: ${app.logs().split('\n').slice(-8).join(' / ')})`
    throw e
  })
  assert.match(JSON.stringify(model.requests[from].body.messages), /Write 牛奶 in Notes/, 'the goal the model read has the value in')
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached' })
})

test('side by side, two picked tiles: a tap on one lands on both phones, and a goal starts on each', { timeout: 120_000 }, async () => {
  const { page } = app
  await page.getByTestId('view-tiles').click()
  const tile = (p) => page.locator(`[data-testid="tile"][data-device="${p.serial}"]`)
  for (const p of phones) await tile(p).getByTestId('tile-pick').check()
  const screen = tile(phones[0]).getByTestId('tile-screen')
  await until(async () => (await screen.getAttribute('data-group')) === 'true' && (await screen.getAttribute('data-frame')) === '1080x2400', 'the first tile in group control with its picture')
  const before = phones.map(taps)
  // “+1” on the Counter is at (703, 500) of the 0–1000 grid.
  const b = await screen.boundingBox()
  const scale = Math.min(b.width / 1080, b.height / 2400)
  const x = b.x + (b.width - 1080 * scale) / 2 + 0.703 * 1080 * scale
  const y = b.y + (b.height - 2400 * scale) / 2 + 0.5 * 2400 * scale
  await page.mouse.click(x, y)
  await until(() => phones.every((p, i) => taps(p) === before[i] + 1), 'one tap on each phone')
  for (const p of phones) {
    const last = phoneEvents(p.events).filter((e) => e.kind === 'tap').at(-1)
    assert.ok(Math.abs(last.x - 759) < 25 && Math.abs(last.y - 1200) < 25, `the tap landed at ${last.x},${last.y} on ${p.serial}`)
  }
  await page.screenshot({ path: join(artifactsDir, 'e2e-tiles-group.png') })

  // One goal, each picked phone its own run.
  model.push(toolCall('finish', { summary: 'Done here.', success: true }), toolCall('finish', { summary: 'Done here.', success: true }))
  await page.getByTestId('goal').fill('Say you are done')
  const start = page.getByTestId('start')
  assert.match(await start.innerText(), /Start on 2/)
  await start.click()
  for (const p of phones) await until(async () => (await tile(p).getAttribute('data-state')) === 'Done', `a run done on ${p.serial}`)
  const runs = await Promise.all(phones.map((p) => tile(p).getAttribute('data-run')))
  assert.notEqual(runs[0], runs[1], 'each phone its own run')
})

test('the Chores view in Chinese', { timeout: 60_000 }, async () => {
  const { page } = app
  await page.getByTestId('language').selectOption('zh-CN')
  await page.getByTestId('chores').click()
  const dialog = page.getByTestId('chores-dialog')
  await dialog.locator('[data-testid="chore-item"][data-name="Count one"]').click()
  assert.match(await dialog.innerText(), /常用任务[\s\S]*每天 07:30[\s\S]*立即运行于/)
  await page.screenshot({ path: join(artifactsDir, 'e2e-chores-zh.png') })
  await page.keyboard.press('Escape')
  await page.getByTestId('language').selectOption('en')
})
