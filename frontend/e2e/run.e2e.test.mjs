// The whole loop through the real UI, the real Go backend, the virtual phone
// behind a private adb server, and a scripted chat-completions server.
import { test as nodeTest, before, after, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { startApp, startPhone, phoneEvents, artifactsDir, assertCalm } from './harness.mjs'
import { startModelServer, toolCall, hold, status } from './modelserver.mjs'
import { promptWords, lastImage, outlineIn, recordOf } from './received.mjs'

let app
let model
const KEY = 'sk-e2e-secret-key-0123456789'

before(async () => {
  model = await startModelServer()
  app = await startApp()
  const { page } = app
  // Set up a model in Settings, as a person would.
  await addModel('Scripted model', 'scripted-model', KEY)
  await page.waitForFunction(() => document.querySelector('[data-testid="pf-key"]')?.getAttribute('placeholder')?.includes('sk-…6789'))
  await page.keyboard.press('Escape')
  await page.getByTestId('model-badge').getByText('Scripted model').waitFor()
  // Try without a phone.
  await page.getByTestId('try-virtual').click()
  await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor({ timeout: 30_000 })
})

after(async () => {
  await app?.stop()
  await model?.stop()
})

// A test that fails leaves its run waiting (a dialog open, a held call):
// stop every live run so the next test starts from a quiet app, and fail
// only the test that broke.
afterEach(async () => {
  model?.clear()
  // A test that fails with a dialog open (History, Settings) must not
  // leave it over the next test's clicks.
  for (let i = 0; i < 3 && app && (await app.page.locator('[role="dialog"]').count()) > 0; i++) await app.page.keyboard.press('Escape').catch(() => {})
  await app?.page
    .evaluate(async () => {
      const live = async () => (await window.go.app.RunsAPI.ActiveRuns()).filter((r) => !['Done', 'Failed', 'Stopped'].includes(r.state))
      const deadline = Date.now() + 5000
      for (let runs = await live(); runs.length && Date.now() < deadline; runs = await live()) {
        await Promise.all(runs.map((r) => window.go.app.RunsAPI.Stop(r.id).catch(() => {})))
        await new Promise((r) => setTimeout(r, 50))
      }
    })
    .catch(() => {})
})

/**
 * test is node:test's, with what a failure needs to be understood from a CI
 * log alone appended to its message: the timeline, what the scripted model
 * served each request of this test, and the app's log.
 */
function test(name, fn) {
  nodeTest(name, async (t) => {
    const from = model.requests.length
    app.pageErrors.length = 0
    try {
      await fn(t)
      // A script error stops the UI updating while the test may still pass.
      assert.deepEqual(app.pageErrors.map(String), [], 'the page threw')
    } catch (e) {
      const timeline = await app.page.getByTestId('timeline').innerText({ timeout: 1000 }).catch(() => '(no timeline)')
      const tail = app.logs().split('\n').slice(-30).join('\n')
      await shot(`failed-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.png`).catch(() => {})
      const errors = app.pageErrors.map((x) => x.stack ?? String(x)).join('\n') || '(none)'
      e.message += `\n--- page errors:\n${errors}\n--- timeline:\n${timeline}\n--- model requests:\n${model.log(from) || '(none)'}\n--- app log (tail):\n${tail}`
      throw e
    }
  })
}

/** addModel adds a custom model in Settings (which stays open) and saves it. */
async function addModel(name, modelName, key = '', url = model.url) {
  const { page } = app
  await page.getByTestId('settings').click()
  await page.getByTestId('add-model').selectOption('custom')
  await page.getByTestId('pf-name').fill(name)
  await page.getByTestId('pf-url').fill(url)
  await page.getByTestId('pf-model').fill(modelName)
  if (key) await page.getByTestId('pf-key').fill(key)
  await page.getByTestId('settings-save').click()
}

/** until polls cond (sync or async) until it holds or fails the test after ms. */
async function until(cond, what, ms = 10_000) {
  const deadline = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting: ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** devicePoint maps a device pixel to the page, for a frame shown letterboxed in box. */
function devicePoint(box, frame, p) {
  const scale = Math.min(box.width / frame.w, box.height / frame.h)
  const left = box.x + (box.width - frame.w * scale) / 2
  const top = box.y + (box.height - frame.h * scale) / 2
  return { x: left + p.x * scale, y: top + p.y * scale }
}

/** mirrorPixel reads the mirror canvas's colour at a device pixel. */
function mirrorPixel(p) {
  return app.page.evaluate(({ x, y }) => {
    const c = document.querySelector('[data-testid="mirror-screen"] canvas')
    const [w, h] = document.querySelector('[data-testid="mirror-screen"]').dataset.frame.split('x').map(Number)
    const scale = Math.min(c.width / w, c.height / h)
    const left = (c.width - w * scale) / 2
    const top = (c.height - h * scale) / 2
    const d = c.getContext('2d').getImageData(Math.round(left + x * scale), Math.round(top + y * scale), 1, 1).data
    return [d[0], d[1], d[2]]
  }, p)
}

const isAmber = ([r, g, b]) => r > 200 && g > 130 && g < 200 && b < 90

function promptText(i) {
  return JSON.stringify(model.requests[i]?.body?.messages ?? [])
}

async function start(goal) {
  const { page } = app
  await page.getByTestId('goal').fill(goal)
  await page.getByTestId('start').click()
}

async function shot(name) {
  mkdirSync(artifactsDir, { recursive: true })
  await app.page.screenshot({ path: join(artifactsDir, name) })
}

test('a task runs to the green summary, steps filling the timeline', async () => {
  const { page } = app
  model.push(
    toolCall('launch', { app: 'Counter' }, 'The counter app is not open.'),
    toolCall('tap', { x: 703, y: 500 }, 'Tap +1 once.'),
    toolCall('finish', { summary: 'The counter now shows 1.', success: true }),
  )
  await start('Add one to the counter')
  const card = page.getByTestId('result-card')
  await card.waitFor({ timeout: 60_000 })
  assert.match(await page.getByTestId('summary').innerText(), /counter now shows 1/)
  assert.ok((await page.getByTestId('step').count()) >= 2)
  assert.match(await page.getByTestId('timeline').innerText(), /Tap \+1 once/)
  assert.equal(await page.getByTestId('run-state').innerText(), 'Done')
  assert.ok(Number(await page.getByTestId('usage-calls').innerText()) === 3)
  // The scripted model has no price: its cost is unknown, not free.
  assert.equal(await page.getByTestId('usage-cost').innerText(), '—')
  assert.match(await page.getByTestId('usage-cost').getAttribute('title'), /prices\.json/)
  // Each step shows the screen it was chosen on, with its cost.
  await page.waitForFunction(() => {
    const imgs = [...document.querySelectorAll('[data-testid="step-thumb"] img')]
    return imgs.length >= 2 && imgs.every((i) => i.complete && i.naturalWidth > 0)
  }, null, { timeout: 10_000 })
  assert.match(await page.getByTestId('step-usage').first().innerText(), /Call 1 · [\d,]+ tokens/)
  await shot('run-done.png')
  // The welcome is put away after the first task, and stays away once the
  // goal is stored among the recent ones (two saves at once, and from two
  // pages: the dev build's own window runs the page as well as chromium).
  await page.getByTestId('welcome').waitFor({ state: 'detached' })
  let saved
  await until(() => {
    saved = JSON.parse(readFileSync(join(app.configDir, 'settings.json'), 'utf8'))
    return saved.welcome_done === true && saved.recent_goals?.includes('Add one to the counter')
  }, 'the settings hold both the recent goal and the welcome put away').catch((e) => {
    throw new Error(`${e.message}: welcome_done ${saved?.welcome_done}, recent_goals ${JSON.stringify(saved?.recent_goals)}`)
  })
})

test('Pay waits for the person: denied is told to the model, allowed goes ahead', async () => {
  const { page } = app
  const before = model.requests.length
  model.push(
    toolCall('launch', { app: 'Shop' }, 'Open the shop.'),
    // Not flagged by the model: the policy's words ("pay") must catch it.
    toolCall('tap', { x: 500, y: 908 }, 'Press Pay.'),
    toolCall('tap', { x: 500, y: 908, sensitive: 'pays ¥99' }, 'The person refused; ask once more.'),
    toolCall('finish', { summary: 'Paid ¥99.', success: true }),
  )
  await start('Buy the item in the shop')
  const dialog = page.getByTestId('request-confirm')
  await dialog.waitFor({ timeout: 60_000 })
  // The button by its words, as the screen shows them: no resource id, no coordinates.
  assert.equal(await page.getByTestId('confirm-target').innerText(), 'Press “Pay ¥99”')
  assert.doesNotMatch(await dialog.innerText(), /com\.tandem|:id\/|\(\d+, \d+\)/)
  // The person decides on the screen the agent saw, with the tap marked.
  await page.waitForFunction(() => {
    const img = document.querySelector('[data-testid="confirm-shot"] img')
    return img && img.complete && img.naturalWidth > 0
  }, null, { timeout: 10_000 })
  assert.match(await page.getByTestId('confirm-why').innerText(), /“pay”/, 'the dialog says which rule asks')
  // The mirror outlines the element the agent wants to press.
  await page.getByTestId('intent-element').waitFor({ state: 'attached', timeout: 15_000 })
  assert.match(await page.getByTestId('intent-element').textContent(), /Pay/)
  await shot('run-confirm.png')
  await page.getByRole('textbox', { name: /Why not/ }).fill('too expensive')
  await page.getByTestId('deny').click()
  // The model is asked again and flags the step itself; the dialog may be
  // redrawn in place rather than closed and opened, so wait for its words.
  await until(() => model.requests.length >= before + 3, 'the model was asked again after the denial')
  await page.getByTestId('confirm-why').filter({ hasText: 'pays ¥99' }).waitFor({ timeout: 30_000 })
  const afterDeny = promptText(before + 2)
  assert.match(afterDeny, /too expensive/, 'the denial reaches the model')
  await page.getByTestId('allow').click()
  await page.getByTestId('result-card').getByText('Paid ¥99.').waitFor({ timeout: 60_000 })
  // The Steps list keeps both answers in the dialog's words, not a point.
  const answers = (await page.locator('[data-testid="person-act"][data-command="deny"], [data-testid="person-act"][data-command="confirm"]').allInnerTexts()).map((a) => a.replace(/\s+/g, ' '))
  assert.ok(answers.some((a) => /Denied: Press “Pay ¥99” — “too expensive”/.test(a)), `the denial: ${answers}`)
  assert.ok(answers.some((a) => /Allowed: Press “Pay ¥99”/.test(a)), `the Allow: ${answers}`)
  assert.ok(answers.every((a) => !/\(\d+, \d+\)/.test(a)), `no answer names a point: ${answers}`)
  // Each answer shows the screen it was decided on, the checkout with the
  // tap marked: a denied tap is no step, and its screen is nowhere else.
  await page.waitForFunction(() => {
    const acts = document.querySelectorAll('[data-testid="person-act"][data-command="deny"], [data-testid="person-act"][data-command="confirm"]')
    return acts.length === 2 && [...acts].every((a) => {
      const img = a.querySelector('[data-testid="step-thumb"] img')
      return img && img.complete && img.naturalWidth > 0 && a.querySelector('[data-testid="step-thumb"] circle')
    })
  }, null, { timeout: 15_000 })
})

test('a rate-limited model call says why it is slow, then the task goes on', async () => {
  const { page } = app
  model.push(status(429, 'slow down', 4), toolCall('finish', { summary: 'Nothing to do.', success: true }))
  await start('Check the phone')
  const retry = page.getByTestId('retry')
  await retry.waitFor({ timeout: 10_000 })
  assert.match(await retry.innerText(), /limiting requests \(429\) · trying again in 4 s \(attempt 2 of 4\)/)
  assert.match(await retry.getAttribute('title'), /slow down/)
  await shot('run-retry.png')
  await page.getByTestId('result-card').getByText('Nothing to do.').waitFor({ timeout: 30_000 })
  assert.equal(await retry.count(), 0, 'the notice goes once the call answered')
})

test('clicking the mirror mid-call takes over; hand back tells the model; Stop ends a held call at once', async () => {
  const { page } = app
  const before = model.requests.length
  model.push(hold)
  const runStarted = Date.now()
  await start('Open the notes app')
  await until(() => model.requests.length > before, 'the model was called')
  await page.getByTestId('thinking').waitFor()
  await assertCalm(page, 'while the model thinks')
  // Pause cancels the call; the pause panel offers to continue.
  const closedBefore = model.closed
  await page.getByTestId('ctl-pause').click()
  await page.getByTestId('run-state').getByText('Paused').waitFor({ timeout: 15_000 })
  await until(() => model.closed > closedBefore, 'pausing closed the model call', 15_000)
  await page.getByTestId('pause-panel').waitFor()
  model.push(hold)
  const beforeResume = model.requests.length
  await page.getByTestId('pause-continue').click()
  await until(() => model.requests.length > beforeResume, 'the model was called again after Continue')
  await page.getByTestId('thinking').waitFor()
  // Click the live mirror while the model is thinking: the person takes over.
  const screen = page.getByTestId('mirror-screen')
  const box = await screen.boundingBox()
  const closedBeforeTakeOver = model.closed
  await screen.click({ position: { x: box.width / 2, y: box.height / 2 } })
  await page.getByTestId('run-state').getByText('You are driving').waitFor({ timeout: 15_000 })
  await until(() => model.closed > closedBeforeTakeOver, 'taking over cancelled the model call', 15_000)
  const closedAfterTakeOver = model.closed
  await shot('run-manual.png')
  // A tap through the mirror goes to the phone and is recorded as the person's.
  await page.getByTestId('nav-home').click()
  await page.getByTestId('step').filter({ hasText: 'You' }).first().waitFor({ timeout: 10_000 })
  // Tap the Notes icon on the launcher through the mirror: the phone opens it.
  const notes = devicePoint(box, { w: 1080, h: 2400 }, { x: 405, y: 340 })
  await page.mouse.click(notes.x, notes.y)
  await until(async () => (await page.getByTestId('step').filter({ hasText: 'You' }).count()) >= 2, 'the tap is recorded as the person\'s')
  // The phone opened Notes: its amber title bar is in the mirror.
  await until(async () => isAmber(await mirrorPixel({ x: 540, y: 110 })), 'the Notes app in the mirror')
  // Mark a region and hand back with a note.
  await page.getByTestId('select-region').click()
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3)
  await page.mouse.down()
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5, { steps: 5 })
  await page.mouse.up()
  await page.getByTestId('region').waitFor()
  model.push(hold)
  await page.getByTestId('ctl-hand_back').click()
  // The region as the page hands it back, in device pixels.
  const marked = (await page.getByTestId('handback-region').innerText()).match(/\((\d+), (\d+)\) – \((\d+), (\d+)\)/)
  assert.ok(marked, 'the hand-back dialog shows the marked region')
  const [rx1, ry1, rx2, ry2] = marked.slice(1).map(Number)
  await page.getByTestId('handback-note').fill('I went home; the app is in the marked area')
  const n = model.requests.length
  await page.getByTestId('handback-send').click()
  await until(() => model.requests.length > n, 'the model was called after hand back', 30_000)
  // What the model received, as the engine and the tools dialect made it
  // (0–1000 grid), not the words this test typed: the person's step with
  // their two acts, their note and the region; the region drawn on the
  // screenshot sent.
  const words = promptWords(model.requests.at(-1))
  const g = (v, size) => Math.floor((v * 1000) / size)
  const near = (a, b) => Math.abs(a - b) <= 1
  const problems = []
  const step = words.match(/^\d+\. \(by the person\) (.*) -> done by the person(.*)$/m)
  if (!step) problems.push('no step by the person in the prompt')
  // The tap as the run recorded it on the phone, in device pixels.
  const tapped = recordOf(app.dataDir, 'Open the notes app').find((e) => e.kind === 'manual' && e.action?.type === 'tap')?.action
  const acts = step?.[1].match(/^key\(home\); tap\((\d+),(\d+)\)$/)
  if (!acts) problems.push(`the person's acts are ${JSON.stringify(step?.[1])}, want key(home); tap(x,y)`)
  else if (!tapped || !near(+acts[1], g(tapped.x, 1080)) || !near(+acts[2], g(tapped.y, 2400)))
    problems.push(`the tap on Notes reached the model at (${acts[1]},${acts[2]}), the phone got it at ${JSON.stringify(tapped)}`)
  if (!step?.[2].includes('(their note: "I went home; the app is in the marked area")')) problems.push(`no note in ${JSON.stringify(step?.[2])}`)
  const region = step?.[2].match(/\(they marked the region \((\d+),(\d+)\)-\((\d+),(\d+)\)\)/)
  const want = [g(rx1, 1080), g(ry1, 2400), g(rx2, 1080), g(ry2, 2400)]
  if (!region || !region.slice(1).every((v, i) => near(+v, want[i])))
    problems.push(`the region told is ${region?.[0] ?? 'missing'}, want (${want[0]},${want[1]})-(${want[2]},${want[3]})`)
  const drawn = await outlineIn(app.browser, lastImage(model.requests.at(-1)), { x1: rx1 / 1080, y1: ry1 / 2400, x2: rx2 / 1080, y2: ry2 / 2400 })
  if (drawn.hits !== drawn.all) problems.push(`${drawn.hits} of ${drawn.all} samples of the region's outline are red in the ${drawn.size} screenshot sent`)
  assert.deepEqual(problems, [], `what the model received after hand back:\n${words.split('\n').filter((l) => /person|marked|outlined/.test(l)).join('\n')}`)
  // The held call is shown as a wait that counts its seconds.
  await page.getByTestId('waiting').waitFor({ timeout: 15_000 })
  assert.match(await page.getByTestId('waiting').innerText(), /^waiting for the model \(\d+ s\)…$/)
  // Stop while the model call is held: one click, Stopped, connection closed.
  // The held call never answers, so Stopped at all shows it was cut; how
  // fast is BenchmarkStopLatency's figure, not a busy machine's.
  await page.getByTestId('ctl-stop').click()
  await page.getByTestId('run-state').getByText('Stopped').waitFor({ timeout: 15_000 })
  await until(() => model.closed > closedAfterTakeOver, 'the held request was closed', 15_000)
  // The usage meter's clock covers the whole run, not just the model's time.
  const lasted = Date.now() - runStarted
  if (lasted >= 2000) {
    const [m, sec] = (await page.getByTestId('usage-elapsed').innerText()).split(':').map(Number)
    assert.ok(m * 60 + sec >= 1, `the run lasted ${lasted} ms but the meter says ${m}:${sec}`)
  }
})

test('the pause panel sends every edit: a new goal and a removed step both take effect', async () => {
  const { page } = app
  const before = model.requests.length
  model.push(
    { content: 'Look around.', tool_calls: [
      { name: 'wait', arguments: JSON.stringify({ ms: 3000 }) },
      { name: 'launch', arguments: JSON.stringify({ app: 'Counter' }) },
      { name: 'launch', arguments: JSON.stringify({ app: 'Notes' }) },
    ] },
    toolCall('finish', { summary: 'The counter is open.', success: true }),
  )
  await start('Look around the phone')
  await until(() => model.requests.length > before, 'the model was called')
  // Pause while the plan runs (the wait is the action under way).
  await page.getByTestId('run-state').getByText('Acting').waitFor({ timeout: 15_000 })
  await page.getByTestId('ctl-pause').click()
  const panel = page.getByTestId('pause-panel')
  await panel.waitFor({ timeout: 15_000 })
  await page.getByTestId('pause-goal').fill('Open the counter only')
  await panel.locator('li', { hasText: 'Notes' }).getByRole('button', { name: 'Remove this step' }).click()
  await page.getByTestId('pause-continue').click()
  await page.getByTestId('result-card').getByText('The counter is open.').waitFor({ timeout: 60_000 })
  const steps = await page.getByTestId('step').allInnerTexts()
  assert.ok(steps.some((s) => /open Counter/.test(s)), `the step kept runs: ${steps.join(' | ')}`)
  assert.ok(!steps.some((s) => /Notes/.test(s)), `the step removed does not run: ${steps.join(' | ')}`)
  assert.match(promptText(model.requests.length - 1), /Open the counter only/, 'the new goal reaches the model')
})

test('the API key never appears in the page, the settings file or the run records', async () => {
  const { page } = app
  const html = await page.content()
  assert.ok(!html.includes(KEY), 'key in the page')
  assert.ok(!readFileSync(join(app.configDir, 'settings.json'), 'utf8').includes(KEY), 'key in settings.json')
  const runs = join(app.dataDir, 'runs')
  for (const d of readdirSync(runs)) {
    const rec = readFileSync(join(runs, d, 'record.jsonl'), 'utf8')
    assert.ok(!rec.includes(KEY), `key in record ${d}`)
  }
  assert.ok(!app.logs().includes(KEY), 'key in the logs')
  // The key was sent to the model server, which is its only destination.
  assert.equal(model.requests[0].headers.authorization, `Bearer ${KEY}`)
})

test('history lists the runs and exports a report that opens', async () => {
  const { page } = app
  // Several tasks later, the welcome put away after the first has stayed away.
  assert.equal(await page.getByTestId('welcome').count(), 0, 'the welcome stayed away')
  await page.getByTestId('history').click()
  await page.getByTestId('past-run').first().waitFor()
  assert.ok((await page.getByTestId('past-run').count()) >= 3)
  // The oldest task (the counter), step by step with its screens.
  await page.locator('[data-testid^="view-"]').last().click()
  await page.getByTestId('history-steps').waitFor()
  assert.ok((await page.getByTestId('history-step').count()) >= 2)
  assert.match(await page.getByTestId('history-steps').innerText(), /Tap \+1 once/)
  await page.waitForFunction(() => {
    const imgs = [...document.querySelectorAll('[data-testid="history-step"] img')]
    for (const i of imgs) if (!(i.complete && i.naturalWidth > 0)) i.scrollIntoView({ block: 'nearest' }) // loaded lazily, once in view
    return imgs.length >= 2 && imgs.every((i) => i.complete && i.naturalWidth > 0)
  }, null, { timeout: 10_000 })
  await shot('run-history.png')
  await page.getByTestId('history-back').click()
  await page.locator('[data-testid^="export-"]').last().click()
  const msg = await page.getByTestId('history-message').innerText()
  const path = msg.replace(/^.*?(\/\S+report\.html).*$/s, '$1')
  const report = await app.browser.newPage()
  await report.goto('file://' + path)
  assert.match(await report.locator('h1').innerText(), /Add one to the counter/)
  assert.ok((await report.locator('section.step img').count()) >= 1)
  await report.close()
  // Open shows it with the system's program (recorded by the harness).
  await page.getByTestId('report-open').click()
  for (const deadline = Date.now() + 10_000; app.opened().length === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50))
  assert.deepEqual(app.opened(), [path], 'Open opened the report')
  assert.equal(await page.getByTestId('report-save-as').count(), 1, 'Save a copy is offered')
  // The payment's report says what the person did: the denial with its
  // reason, then the Allow, between the agent's steps.
  await page.getByTestId('past-run').filter({ hasText: 'Buy the item in the shop' }).locator('[data-testid^="export-"]').click()
  let payPath = path
  await until(async () => {
    payPath = (await page.getByTestId('history-message').innerText()).replace(/^.*?(\/\S+report\.html).*$/s, '$1')
    return payPath !== path
  }, 'the payment\'s report written')
  const pay = await app.browser.newPage({ viewport: { width: 900, height: 700 } })
  await pay.goto('file://' + payPath)
  const acts = await pay.locator('section.act').allInnerTexts()
  // Each answer names the button, as the dialog did, never that the run had stopped.
  assert.ok(acts.some((a) => /Denied Press “Pay ¥99”/.test(a) && /too expensive/.test(a)), `the denial and its reason: ${acts}`)
  assert.ok(acts.some((a) => /Allowed Press “Pay ¥99”/.test(a)), `the Allow: ${acts}`)
  assert.ok(acts.every((a) => !/had stopped/.test(a)), `no answer reads as a stop: ${acts}`)
  assert.ok(acts.every((a) => /by the person/.test(a)))
  // Each answer shows the checkout it was decided on, the tap marked.
  const shown = await pay.locator('section.act').evaluateAll((els) => els.filter((e) => /Press “Pay ¥99”/.test(e.textContent))
    .map((e) => { const img = e.querySelector('.shot img'); return !!img && img.complete && img.naturalWidth > 0 && !!e.querySelector('.shot ellipse') }))
  assert.deepEqual(shown, [true, true], 'the denial and the Allow each show their screen')
  await pay.screenshot({ path: join(artifactsDir, 'report-person.png'), fullPage: true })
  await pay.close()
  // So does History's step view.
  await page.getByTestId('past-run').filter({ hasText: 'Buy the item in the shop' }).locator('[data-testid^="view-"]').click()
  await page.waitForFunction(() => {
    const acts = document.querySelectorAll('[data-testid="history-act"][data-command="deny"], [data-testid="history-act"][data-command="confirm"]')
    return acts.length === 2 && [...acts].every((a) => {
      const img = a.querySelector('[data-testid="step-thumb"] img')
      // A thumbnail loads lazily, once in view: the person scrolls to it
      // (the run's video above the steps may push it out of view).
      if (img && !(img.complete && img.naturalWidth > 0)) a.scrollIntoView({ block: 'nearest' })
      return img && img.complete && img.naturalWidth > 0
    })
  }, null, { timeout: 15_000 })
  await page.keyboard.press('Escape')
})

// English strings of the UI's dictionary, for the untranslated-string check.
function englishStrings() {
  const src = readFileSync(join(import.meta.dirname, '../src/lib/i18n.svelte.ts'), 'utf8')
  const en = src.slice(src.indexOf('const en'), src.indexOf('const zh'))
  const out = []
  for (const m of en.matchAll(/^\s*'[^']+':\s*'((?:[^'\\]|\\.)*)'/gm)) {
    for (const part of m[1].replace(/\\'/g, "'").split(/\{[a-z]+\}/)) {
      if (part.trim().split(/\s+/).length >= 2 && part.trim().length >= 8) out.push(part.trim())
    }
  }
  return out
}

// Text that is the person's or the device's data, not the UI's words.
const dataSelectors = [
  '[data-testid="step"] .thought', 'code', '.goal', '[data-testid="summary"]', '.reason', '.label', '.sub',
  '[data-testid="model-badge"]', '[data-testid="past-run"] .goal', 'option', '.kbd', 'textarea', 'input',
  '.status .txt', '.dev', '.mono', '.pn', '.pm', '.sum',
]
const allowed = new Set([
  // names of programs and settings, the same in every language
  'scrcpy', 'scrcpy-server', 'screenrecord', 'screencap', 'TANDEM', 'SCRCPY', 'SERVER', 'gstreamer', 'libav', 'ffmpeg',
  'Tandem', 'Space', 'Shift', 'Esc',
  // the keys of a hotkey as a keyboard labels them and as one is typed (ctrl+shift+escape)
  'Ctrl', 'Super', 'ctrl', 'shift', 'escape', 'token', 'tokens', 'Token', 'Ollama', 'Studio', 'vLLM', 'OpenAI', 'Wi-Fi', 'HTML', 'JSON', 'Keyboard', 'WebView', 'Qwen', 'AutoGLM', 'Doubao', 'TARS'])

/** untranslated lists English left in the visible UI. */
async function untranslated(page, english) {
  const { texts } = await page.evaluate((skip) => {
    const texts = []
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement
      if (!el || !n.textContent.trim() || skip.some((s) => el.closest(s))) continue
      const r = el.getBoundingClientRect()
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue
      texts.push(n.textContent.trim())
    }
    for (const el of document.querySelectorAll('[title],[placeholder],[aria-label]')) {
      if (skip.some((s) => el.closest(s) && !el.matches('textarea,input'))) continue
      for (const a of ['title', 'placeholder', 'aria-label']) if (el.getAttribute(a)) texts.push(el.getAttribute(a))
    }
    return { texts }
  }, dataSelectors)
  const all = texts.join('\n')
  const found = english.filter((s) => all.includes(s))
  for (const t of texts) {
    const words = t
      .replace(/[\w~./-]+\.(json|png|html|deb|exe)\b/g, '') // file names are the same in every language
      .replace(/\badb -[\w -]*\w/g, '') // and so are command lines (adb -a -P 5037 nodaemon server)
    for (const w of words.match(/[A-Za-z][A-Za-z-]{3,}/g) ?? []) if (!allowed.has(w)) found.push(`${w} (in "${t.slice(0, 60)}")`)
  }
  return found
}

test('Run again replays the counter task without the model; History marks its steps replayed', async () => {
  const { page } = app
  const before = model.requests.length
  await page.getByTestId('history').click()
  await page.getByTestId('past-run').filter({ hasText: 'Add one to the counter' }).last().locator('[data-testid^="again-"]').click()
  await until(async () => /Running again/.test(await page.getByTestId('history-message').innerText().catch(() => '')), 'Run again said it started')
  await page.keyboard.press('Escape')
  await page.getByTestId('timeline').getByText(/Replayed step 2\/2: tap “\+1”/).first().waitFor({ timeout: 30_000 })
  await page.getByTestId('result-card').waitFor({ timeout: 30_000 })
  assert.match(await page.getByTestId('summary').innerText(), /counter now shows 1/)
  assert.equal(model.requests.length, before, 'the replay asked the model')
  // The newest run in History, step by step: both steps replayed.
  await page.getByTestId('history').click()
  await page.getByTestId('past-run').first().locator('[data-testid^="view-"]').click()
  await page.getByTestId('history-steps').waitFor()
  assert.equal(await page.getByTestId('step-replayed').count(), 2)
  await page.keyboard.press('Escape')
})

test('the Chinese UI has no untranslated strings', async () => {
  const { page } = app
  const english = englishStrings()
  assert.ok(english.length > 100, `read ${english.length} English strings`)
  await page.getByTestId('toast').waitFor({ state: 'detached' }) // a passing notice said in English before the switch
  await page.getByTestId('language').selectOption('zh-CN')
  await page.getByText('步骤').first().waitFor()
  const problems = []
  problems.push(...(await untranslated(page, english)).map((p) => `main: ${p}`))
  for (const [open, name] of [['settings', 'settings'], ['history', 'history'], ['about', 'about']]) {
    await page.getByTestId(open).click()
    await page.getByRole('dialog').waitFor()
    problems.push(...(await untranslated(page, english)).map((p) => `${name}: ${p}`))
    if (name === 'history') {
      // A past task's last line is the UI's words when it is the engine's reason (the summary
      // lines are the model's data, left out of the check above): it read "stopped by the person".
      const stopped = page.getByTestId('past-run').filter({ hasText: 'Open the notes app' }).getByTestId('past-summary')
      assert.equal(await stopped.innerText(), '你停止了任务')
    }
    await shot(`run-zh-${name}.png`)
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'detached', timeout: 3000 }).catch((e) => {
      throw new Error(`the ${name} dialog did not close on Escape: ${e.message}`)
    })
  }
  await shot('run-zh.png')
  // What the run asks is worded in Chinese too; the server's own words stay.
  model.push(status(401, 'bad key'))
  await start('检查手机')
  const ask = page.getByTestId('request-message')
  await ask.waitFor({ timeout: 30_000 })
  const said = await ask.innerText()
  assert.equal(said, '模型服务拒绝了 API 密钥（401：“bad key”）。请在“设置 → 模型”中重新粘贴密钥，然后继续。')
  // The rest of the dialog has no English (the message, checked above, holds the server's words).
  await ask.evaluate((el) => (el.textContent = ''))
  problems.push(...(await untranslated(page, english)).map((p) => `request: ${p}`))
  await page.getByTestId('request-stop').click()
  await page.getByTestId('run-state').getByText('已停止').waitFor()
  problems.push(...(await reasonsInEnglish(page)).map((p) => `stopped: ${p}`))
  // A question and its answer: the Steps list keeps both, spaced, in Chinese.
  model.push(toolCall('ask_user', { question: '要哪种颜色？' }, '只有你能选。'), toolCall('finish', { summary: '选了蓝色。', success: true }))
  await start('选一种颜色')
  await page.getByTestId('answer').fill('蓝色')
  await page.getByTestId('send-answer').click()
  await page.getByTestId('run-state').getByText('已完成').waitFor({ timeout: 30_000 })
  const answered = (await page.locator('[data-testid="person-act"][data-command="answer"]').innerText()).replace(/\s+/g, ' ')
  assert.match(answered, /智能体问：“要哪种颜色？”/, answered)
  assert.match(answered, /回答了 — “蓝色”/, answered)
  problems.push(...(await untranslated(page, english)).map((p) => `answered: ${p}`))
  // A model server that is not running: said in Chinese, where, with no hint
  // for an agent it cannot reach; the person's Stop is worded too.
  await addModel('Down model', 'down-model', '', 'http://127.0.0.1:9/v1')
  await page.getByTestId('profile-Down model').waitFor()
  await page.keyboard.press('Escape')
  await page.getByTestId('model-pick').selectOption({ label: '模型：Down model' })
  await start('检查手机')
  const down = page.getByTestId('request-message')
  await down.waitFor({ timeout: 60_000 })
  assert.equal(await down.innerText(), '模型服务（http://127.0.0.1:9/v1）没有响应：请启动它，或在“设置 → 模型”中检查接口地址，然后继续。')
  assert.equal(await page.getByTestId('request-hint').count(), 0, 'no hint for the agent while the model server is down')
  await shot('run-zh-model-down.png') // as the person sees it, before the check below blanks the message
  await down.evaluate((el) => (el.textContent = ''))
  problems.push(...(await untranslated(page, english)).map((p) => `model down: ${p}`))
  await page.getByTestId('request-stop').click()
  await page.getByTestId('run-state').getByText('已停止').waitFor()
  problems.push(...(await reasonsInEnglish(page)).map((p) => `stopped: ${p}`))
  await page.getByTestId('model-pick').selectOption({ label: '模型：Scripted model' })
  await page.getByTestId('language').selectOption('en')
  assert.deepEqual([...new Set(problems)], [])
})

/** reasonsInEnglish lists a run's reason (in the control bar, its tooltip and the Steps list) left in English. */
async function reasonsInEnglish(page) {
  const texts = await page.evaluate(() => [
    ...[...document.querySelectorAll('.status .txt')].flatMap((el) => [el.textContent ?? '', el.getAttribute('title') ?? '']),
    ...[...document.querySelectorAll('[data-testid="timeline"] .summary')].map((el) => el.textContent ?? ''),
  ])
  return texts.filter((t) => /[A-Za-z]{4,}/.test(t))
}

test('with two models, the goal bar picks the one new tasks use', async () => {
  const { page } = app
  await addModel('Second model', 'second-model')
  await page.getByTestId('profile-Second model').waitFor()
  await page.keyboard.press('Escape')
  const pick = page.getByTestId('model-pick')
  await pick.waitFor()
  await pick.selectOption({ label: 'Model: Second model' })
  await page.getByTestId('model-badge').getByText('Second model').waitFor()
  // The badge follows the pick at once; the file once the save is through.
  await until(() => {
    const saved = JSON.parse(readFileSync(join(app.configDir, 'settings.json'), 'utf8'))
    return saved.active_profile === saved.profiles.find((p) => p.name === 'Second model')?.id
  }, 'the pick stored as the model new tasks use')
  await pick.selectOption({ label: 'Model: Scripted model' })
  await page.getByTestId('model-badge').getByText('Scripted model').waitFor()
})

test('two phones run side by side; the device list shows which one waits for you', async () => {
  const { page } = app
  const first = await page.locator('[data-testid^="device-"][aria-selected="true"]').getAttribute('data-testid')
  const firstID = first.replace('device-', '')
  // A second virtual phone, selected as it starts, runs a task whose model thinks on.
  await page.getByTestId('try-virtual').click()
  await page.waitForFunction((id) => {
    const sel = document.querySelector('[data-testid^="device-"][aria-selected="true"]')
    return sel && sel.getAttribute('data-testid') !== `device-${id}`
  }, firstID)
  const second = (await page.locator('[data-testid^="device-"][aria-selected="true"]').getAttribute('data-testid')).replace('device-', '')
  await page.locator(`[data-testid="mirror-screen"][data-frame="1080x2400"]`).waitFor({ timeout: 30_000 })
  const before = model.requests.length
  model.push(hold, toolCall('ask_user', { question: 'Which colour do you want?' }, 'Only you can choose.'))
  await start('Think for a long time')
  await until(() => model.requests.length > before, 'the second phone asked the model')
  await page.getByTestId(`device-run-${second}`).getByText('Thinking').waitFor()
  // Back to the first phone: its own task asks a question.
  await page.getByTestId(`device-${firstID}`).click()
  await start('Pick a colour')
  await page.getByTestId('request-question').waitFor({ timeout: 30_000 })
  const waiting = page.getByTestId(`device-run-${firstID}`)
  await waiting.getByText('Waiting for you').waitFor()
  assert.ok(await waiting.evaluate((el) => el.classList.contains('attn')), 'a run waiting for the person stands out')
  assert.match(await page.getByTestId(`device-run-${second}`).innerText(), /Thinking/, 'the other phone is still thinking')
  await shot('run-two-phones.png')
  // Stop both, one at a time.
  await page.getByTestId('request-stop').click()
  await page.getByTestId(`device-run-${firstID}`).waitFor({ state: 'detached' })
  await page.getByTestId(`device-${second}`).click()
  await page.getByTestId('ctl-stop').click()
  await page.getByTestId(`device-run-${second}`).waitFor({ state: 'detached' })
})

test('Stop ends the inputs: after Stop returns nothing reaches the phone, by the phone\'s own log', async () => {
  const { page } = app
  // A phone of its own that logs every input it receives, as it arrives.
  const log = join(app.dataDir, 'phone-events.jsonl')
  const phone = await startPhone(app.adb.port, { events: log })
  try {
    await page.getByTestId(`device-${phone.serial}`).click()
    await page.locator(`[data-testid="device-${phone.serial}"][aria-selected="true"]`).waitFor({ timeout: 30_000 })
    await page.getByTestId('mirror-screen').waitFor({ timeout: 30_000 })
    // The page's Stop, timed where it returns to the page (window.go is
    // looked up at each call: lib/backend.ts).
    await page.evaluate(() => {
      const api = window.go.app.RunsAPI
      const stop = api.Stop
      window.__stopReturned = 0
      api.Stop = async (...args) => {
        const r = await stop.apply(api, args)
        window.__stopReturned = Date.now()
        return r
      }
      window.__restoreStop = () => (api.Stop = stop)
    })
    // A model that keeps answering: open the counter, then +1 three times
    // a reply, again and again.
    const plus = { name: 'tap', arguments: JSON.stringify({ x: 703, y: 500 }) }
    model.push(toolCall('launch', { app: 'Counter' }, 'Open the counter.'))
    for (let i = 0; i < 100; i++) model.push({ content: 'Three more.', tool_calls: [plus, plus, plus] })
    await start('Count up for ever')
    const taps = () => phoneEvents(log).filter((e) => e.kind === 'tap')
    await until(() => taps().length >= 5, 'the agent tapped the phone five times', 60_000)
    await page.getByTestId('ctl-stop').click()
    await until(() => page.evaluate(() => window.__stopReturned), 'Stop returned to the page', 15_000)
    const returned = await page.evaluate(() => window.__stopReturned)
    await page.getByTestId('run-state').getByText('Stopped').waitFor({ timeout: 15_000 })
    // Watch the phone well past the run's own pace: three times the longest
    // gap between two of its inputs before Stop, and at least 2 s (the
    // absence of an input has no event to wait for).
    const before = phoneEvents(log).filter((e) => e.ms <= returned + 1)
    const gaps = before.slice(1).map((e, i) => e.ms - before[i].ms)
    const watch = Math.max(2000, 3 * Math.max(0, ...gaps))
    await new Promise((r) => setTimeout(r, Math.max(0, returned + watch - Date.now())))
    const late = phoneEvents(log).filter((e) => e.ms > returned + 1)
    assert.ok(before.length >= 5, `the phone logged ${before.length} inputs before Stop`)
    assert.deepEqual(
      late.map((e) => `${e.kind} ${e.args.join(' ')} ${Math.round(e.ms - returned)} ms after Stop returned`),
      [],
      'inputs reached the phone after Stop returned',
    )
  } finally {
    await page.evaluate(() => window.__restoreStop?.()).catch(() => {})
    phone.proc.kill('SIGINT')
  }
})
