// What a person meets first, and the layout at the window's smallest size
// (960x640) and at a common laptop size (1280x820): the real Go backend, the
// virtual phone behind a private adb server, a scripted model. The browser's
// viewport is the window's web view (Wails draws no chrome of its own inside
// it), so the rectangles measured here are the window's.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startApp, artifactsDir } from './harness.mjs'
import { startModelServer, toolCall, hold } from './modelserver.mjs'

let app
let model

before(async () => {
  model = await startModelServer()
  app = await startApp()
})

after(async () => {
  await app?.stop()
  await model?.stop()
})

async function shot(name) {
  mkdirSync(artifactsDir, { recursive: true })
  await app.page.screenshot({ path: join(artifactsDir, `polish-${name}.png`) })
}

async function until(cond, what, ms = 15_000) {
  const deadline = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting: ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** rect is an element's box on the page (the first that matches). */
function rect(sel) {
  return app.page.evaluate((s) => {
    const e = document.querySelector(s)
    if (!e) return null
    const r = e.getBoundingClientRect()
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height, width: r.width }
  }, sel)
}

const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom

/** laidOut says what, of the window's parts, overlaps or leaves the window. */
async function laidOut(parts) {
  const { page } = app
  const vp = page.viewportSize()
  const got = {}
  for (const [name, sel] of Object.entries(parts)) got[name] = await rect(sel)
  const problems = []
  const names = Object.keys(got).filter((n) => got[n])
  for (const n of names) {
    const r = got[n]
    if (r.bottom > vp.height + 0.5 || r.right > vp.width + 0.5) problems.push(`${n} leaves the ${vp.width}x${vp.height} window: ${JSON.stringify(r)}`)
  }
  for (let i = 0; i < names.length; i++)
    for (let j = i + 1; j < names.length; j++)
      if (overlap(got[names[i]], got[names[j]])) problems.push(`${names[i]} ${JSON.stringify(got[names[i]])} overlaps ${names[j]} ${JSON.stringify(got[names[j]])}`)
  return { got, problems }
}

/** ensureModel starts the virtual phone and sets up the scripted model through Settings, unless they are. */
async function ensureModel() {
  const { page } = app
  if (!(await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').count())) {
    await page.getByTestId('try-virtual').first().click()
    await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor({ timeout: 30_000 })
  }
  if ((await page.getByTestId('model-badge').innerText()).includes('Scripted model')) return
  await page.getByTestId('settings').click()
  await addModel()
  await page.keyboard.press('Escape')
  await page.getByTestId('settings-dialog').waitFor({ state: 'detached' })
}

async function addModel() {
  const { page } = app
  await page.getByTestId('add-model').selectOption('custom')
  await page.getByTestId('pf-name').fill('Scripted model')
  await page.getByTestId('pf-url').fill(model.url)
  await page.getByTestId('pf-model').fill('scripted-model')
  await page.getByTestId('settings-save').click()
  await page.getByTestId('model-badge').getByText('Scripted model').waitFor()
}

test('at 960x640 the welcome leaves the panels their room: the device list and the Steps panel show, nothing over the bars', async () => {
  const { page } = app
  await page.setViewportSize({ width: 960, height: 640 })
  await page.getByTestId('welcome-models').waitFor({ timeout: 15_000 })
  await shot('00-welcome-960x640')
  const { problems } = await laidOut({
    devices: '[data-testid="devices"]',
    mirror: '[data-testid="mirror"]',
    steps: '[data-testid="timeline"]',
    goalbar: 'footer .goal.panel',
    controls: '[data-testid="controls"]',
  })
  const panel = await rect('[data-testid="devices"]')
  const dev = await rect('[data-testid="devices"] .list li')
  if (!dev || dev.bottom > panel.bottom || panel.height < 200) problems.push(`the device list is hidden: panel ${JSON.stringify(panel)}, first device ${JSON.stringify(dev)}`)
  await page.setViewportSize({ width: 1280, height: 800 })
  assert.deepEqual(problems, [])
})

test('with no model Start is off and says so, with a button to Settings; the fields show examples', async () => {
  const { page } = app
  // Every finding is gathered, so one failure on the old code hides no other.
  const problems = []
  await page.getByTestId('try-virtual').first().click()
  await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor({ timeout: 30_000 })
  await page.getByTestId('goal').fill('Open the notes app')
  if (!(await page.getByTestId('start').isDisabled())) problems.push('Start is enabled with no model')
  await shot('01-no-model')
  if (await page.getByTestId('goal-settings').count()) await page.getByTestId('goal-settings').click()
  else {
    problems.push('no button to Settings beside Start')
    await page.getByTestId('settings').click()
  }
  await page.getByTestId('settings-dialog').waitFor()
  await page.getByTestId('add-model').selectOption('custom')
  for (const f of ['pf-name', 'pf-url', 'pf-model']) {
    const ph = await page.getByTestId(f).getAttribute('placeholder')
    if (!ph?.trim()) problems.push(`${f} has no placeholder`)
  }
  await addModel()
  // The tag on the model in use is whole.
  const cut = await page.evaluate(() => {
    const b = document.querySelector('[data-testid="settings-dialog"] .badge')
    return b ? b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1 : 'missing'
  })
  if (cut !== false) problems.push(`the "In use" tag is cut off (${cut})`)
  await shot('02-settings')
  await page.keyboard.press('Escape')
  if (await page.getByTestId('start').isDisabled()) problems.push('Start is off with a model set up')
  assert.deepEqual(problems, [])
})

test('the two selects on top say what they choose', async () => {
  const { page } = app
  const shown = await page.evaluate(() =>
    ['language', 'theme'].map((id) => {
      // What shows with the list closed: the words beside the select and its choice.
      const s = document.querySelector(`[data-testid="${id}"]`)
      const beside = [...s.closest('label').childNodes].filter((n) => n !== s).map((n) => n.textContent.trim()).join(' ')
      return `${beside} ${s.selectedOptions[0].text}`.trim()
    }),
  )
  assert.notEqual(shown[0], shown[1], `both selects read ${JSON.stringify(shown[0])}`)
})

test('at 960x640 a paused run keeps the Steps panel off the goal and control bars; at 1280x820 it leaves the steps room', async () => {
  const { page } = app
  await ensureModel()
  await page.setViewportSize({ width: 960, height: 640 })
  model.push(hold)
  await page.getByTestId('goal').fill('Open the notes app')
  await page.getByTestId('start').click()
  await page.getByTestId('thinking').waitFor()
  await page.getByTestId('ctl-pause').click()
  await page.getByTestId('pause-panel').waitFor({ timeout: 15_000 })
  await page.getByTestId('run-state').getByText('Paused').waitFor({ timeout: 15_000 })
  await shot('03-paused-960x640')
  const parts = {
    devices: '[data-testid="devices"]',
    mirror: '[data-testid="mirror"]',
    pause: '[data-testid="pause-panel"]',
    steps: '[data-testid="timeline"]',
    goalbar: 'footer .goal.panel',
    controls: '[data-testid="controls"]',
  }
  const small = await laidOut(parts)
  assert.deepEqual(small.problems, [], 'at 960x640')
  // The pause panel's buttons are in reach.
  for (const b of ['pause-continue', 'pause-doit', 'pause-cancel']) assert.ok(await page.getByTestId(b).isVisible(), `${b} hidden`)

  await page.setViewportSize({ width: 1280, height: 820 })
  await shot('04-paused-1280x820')
  const mid = await laidOut(parts)
  assert.deepEqual(mid.problems, [], 'at 1280x820')
  // The Steps list keeps room for two cards at least (a step card with its
  // thumbnail is about 90 px high).
  const list = await rect('[data-testid="timeline"] .steps')
  assert.ok(list && list.height >= 180, `the Steps list is ${list?.height} px high beside the pause panel, want room for two cards`)
  await page.getByTestId('pause-cancel').click()
  await page.getByTestId('run-state').getByText('Stopped').waitFor({ timeout: 15_000 })
  model.clear()
})

test("a failed Wi-Fi connect says so without hiding the device list", async () => {
  const { page } = app
  await page.setViewportSize({ width: 960, height: 640 })
  await page.getByTestId('wifi-addr').fill('127.0.0.1:9')
  await page.getByTestId('wifi-addr').press('Enter')
  await page.getByTestId('device-message').waitFor({ timeout: 30_000 })
  await shot('05-wifi-error-960x640')
  const panel = await rect('[data-testid="devices"]')
  const msg = await rect('[data-testid="device-message"]')
  const dev = await rect('[data-testid="devices"] .list li')
  assert.ok(dev, 'no device in the list')
  assert.ok(dev.bottom <= msg.top && dev.top >= panel.top, `the device ${JSON.stringify(dev)} is hidden by the error ${JSON.stringify(msg)}`)
  assert.ok(msg.height <= panel.height / 3, `the error takes ${msg.height} of the panel's ${panel.height} px`)
  await page.setViewportSize({ width: 1280, height: 800 })
})

test('Ctrl+Enter sends the answer in the question dialog', async () => {
  const { page } = app
  await ensureModel()
  model.push(toolCall('ask_user', { question: 'Which colour do you want?' }, 'Only you can choose.'), hold)
  await page.getByTestId('goal').fill('Pick a colour')
  await page.getByTestId('start').click()
  await page.getByTestId('request-question').waitFor({ timeout: 30_000 })
  await page.getByTestId('answer').fill('Blue')
  await page.setViewportSize({ width: 960, height: 640 })
  await shot('06-question')
  const n = model.requests.length
  await page.getByTestId('answer').press('Control+Enter')
  await until(() => model.requests.length > n, 'the answer went to the model after Ctrl+Enter')
  assert.ok(JSON.stringify(model.requests.at(-1).body.messages).includes('Blue'), 'the answer is not in the prompt')
  await page.getByTestId('request-question').waitFor({ state: 'detached' })
  await page.getByTestId('ctl-stop').click()
  await page.getByTestId('run-state').getByText('Stopped').waitFor({ timeout: 15_000 })
  await page.setViewportSize({ width: 1280, height: 800 })
  model.clear()
})

test("the report's Open / Save line shows in History's step view at 960x640", async () => {
  const { page } = app
  await ensureModel()
  // A run of several steps: its step view is taller than the window.
  model.push(
    toolCall('launch', { app: 'Counter' }, 'The counter app is not open.'),
    ...Array.from({ length: 5 }, () => toolCall('tap', { x: 703, y: 500 }, 'Tap +1.')),
    toolCall('finish', { summary: 'The counter now shows 5.', success: true }),
  )
  await page.getByTestId('goal').fill('Count to five')
  await page.getByTestId('start').click()
  await page.getByTestId('result-card').waitFor({ timeout: 90_000 })
  await page.setViewportSize({ width: 960, height: 640 })
  await page.getByTestId('history').click()
  await page.getByTestId('past-run').first().waitFor()
  await shot('07-history-list-960x640')
  await page.getByTestId('history-dialog').locator('[data-testid^="view-"]').first().click()
  await page.getByTestId('history-back').waitFor()
  await page.getByTestId('history-dialog').getByRole('button', { name: /Export/ }).last().click()
  await page.getByTestId('report-open').waitFor({ timeout: 15_000 })
  await shot('07-history-report-960x640')
  // In view: the button is what the page has at its centre, inside the window.
  const seen = await page.evaluate(() => {
    const b = document.querySelector('[data-testid="report-open"]')
    const r = b.getBoundingClientRect()
    const x = r.left + r.width / 2
    const y = r.top + r.height / 2
    return y < innerHeight && x < innerWidth && b.contains(document.elementFromPoint(x, y))
  })
  assert.ok(seen, 'the report\'s Open button is below the fold of the step view')
  await page.keyboard.press('Escape')
  await page.setViewportSize({ width: 1280, height: 800 })
})

test('the welcome comes back from About, says the phone is ready, and its cloud key line is a button', async () => {
  const { page } = app
  // A task has run: the welcome was put away.
  assert.equal(await page.getByTestId('welcome').count(), 0, 'the welcome is still shown after a task')
  await page.getByTestId('about').click()
  await page.getByTestId('about-welcome').click()
  await page.getByTestId('welcome').waitFor()
  await page.getByTestId('welcome-models').waitFor()
  await shot('08-welcome-again')
  assert.equal(await page.getByTestId('welcome-vphone-start').count(), 0, 'the welcome offers the virtual phone while it runs')
  assert.match(await page.getByTestId('welcome-phone-ready').innerText(), /running|connected/)
  await page.getByTestId('welcome-add-key').click()
  await page.getByTestId('settings-dialog').waitFor()
  await page.keyboard.press('Escape')
  await page.getByTestId('welcome-done').click()
  await page.getByTestId('welcome').waitFor({ state: 'detached' })
})
