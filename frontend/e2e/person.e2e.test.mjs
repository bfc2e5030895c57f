// The person's side of the window (issue 17), through the real UI, the real
// Go backend, the virtual phone behind a private adb server and a scripted
// chat-completions server: keys never leak onto the device, Escape closes the
// dialog on top, the goal box replaces text from Recent goals, and a command
// shows at once that it was heard.
import { test as nodeTest, before, after, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { addModel, startApp, artifactsDir, assertCalm, watchMotion } from './harness.mjs'
import { startModelServer, toolCall, hold, text, status } from './modelserver.mjs'
import { mkdirSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'

async function shot(name) {
  mkdirSync(artifactsDir, { recursive: true })
  await app.page.screenshot({ path: join(artifactsDir, name) })
}

let app
let model

before(async () => {
  model = await startModelServer()
  app = await startApp()
  const { page } = app
  await addModel(page, model.url)
  await page.getByTestId('try-virtual').click()
  await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor({ timeout: 30_000 })
  // Every input sent to the device, as the backend is asked for it.
  await page.evaluate(() => {
    const { MirrorAPI } = window.go.app
    window.__sent = []
    for (const [a, name] of [[MirrorAPI, 'MirrorGesture']]) {
      const real = a[name]
      a[name] = (...args) => {
        window.__sent.push(args[1])
        return real(...args)
      }
    }
  })
})

after(async () => {
  await app?.stop()
  await model?.stop()
})

afterEach(async () => {
  model?.clear()
  await app?.page
    .evaluate(async () => {
      for (const r of await window.go.app.RunsAPI.ActiveRuns()) {
        if (!['Done', 'Failed', 'Stopped'].includes(r.state)) await window.go.app.RunsAPI.Stop(r.id).catch(() => {})
      }
    })
    .catch(() => {})
})

function test(name, fn) {
  nodeTest(name, async () => {
    app.pageErrors.length = 0
    await fn()
    assert.deepEqual(app.pageErrors.map(String), [], 'the page threw')
  })
}

async function until(cond, what, ms = 10_000) {
  const deadline = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting: ${typeof what === 'function' ? what() : what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const sent = () => app.page.evaluate(() => window.__sent.slice())

async function start(goal) {
  await app.page.getByTestId('goal').fill(goal)
  await app.page.getByTestId('start').click()
}

async function manual() {
  const { page } = app
  const n = model.requests.length
  model.push(hold)
  await start('Open the notes app')
  await until(() => model.requests.length > n, 'the model was called')
  const screen = page.getByTestId('mirror-screen')
  const box = await screen.boundingBox()
  await screen.click({ position: { x: box.width / 2, y: box.height / 2 } })
  await page.getByTestId('run-state').getByText('You are driving').waitFor({ timeout: 10_000 })
  return screen
}

test('in Manual, keys pressed on the mirror are Tandem\'s shortcuts, never text on the phone', async () => {
  const { page } = app
  const screen = await manual()
  // The mirror has the focus after the click, as a person leaves it.
  await screen.click({ position: { x: 5, y: 5 } })
  await page.evaluate(() => (window.__sent.length = 0))
  await page.keyboard.press('h')
  await page.getByTestId('handback-dialog').waitFor({ timeout: 3000 })
  // The dialog's note has the focus; Escape closes the dialog, not the run.
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'handback-note')
  await page.keyboard.press('Escape')
  await page.getByTestId('handback-dialog').waitFor({ state: 'detached', timeout: 3000 })
  assert.equal(await page.getByTestId('run-state').innerText(), 'You are driving')
  await screen.focus()
  await page.keyboard.type('t x')
  assert.deepEqual((await sent()).filter((a) => a.type === 'type' || a.type === 'key'), [], 'no key reached the device')
  // The rule is on screen, and text for the phone has its own field.
  await page.getByTestId('keys-hint').waitFor()
  await page.getByTestId('device-text').fill('hello 你好')
  await page.getByTestId('device-text').press('Enter')
  await until(async () => (await sent()).some((a) => a.type === 'type' && a.text === 'hello 你好'), 'the field\'s text reached the device')
  // Esc from the text field still stops the run.
  await page.getByTestId('device-text').press('Escape')
  await page.getByTestId('run-state').getByText('Stopped').waitFor({ timeout: 5000 })
})

test('Escape closes Settings even after Test connection took the focus away', async () => {
  const { page } = app
  await page.getByTestId('settings').click()
  await page.getByTestId('profile-Scripted model').click()
  model.push(text('OK'))
  await page.getByTestId('pf-test').click()
  await page.getByTestId('pf-test-result').waitFor({ timeout: 15_000 })
  await page.keyboard.press('Escape')
  await page.getByTestId('settings-dialog').waitFor({ state: 'detached', timeout: 3000 })
})

test('Settings has one Save, and a wrong field is said next to it and nothing is saved', async () => {
  const { page } = app
  await page.getByTestId('settings').click()
  const dialog = page.getByTestId('settings-dialog')
  await page.getByTestId('add-model').selectOption('custom')
  assert.equal(await dialog.getByRole('button', { name: /^Save$/ }).count(), 1, 'exactly one Save')
  await page.getByTestId('pf-name').fill('Broken model')
  await page.getByTestId('pf-url').fill('localhost:8000')
  await page.getByTestId('pf-model').fill('m')
  await page.getByTestId('settings-save').click()
  await page.getByTestId('err-base_url').waitFor()
  assert.match(await page.getByTestId('err-base_url').innerText(), /http\(s\) address/)
  assert.equal(await page.getByTestId('pf-url').getAttribute('aria-invalid'), 'true')
  await shot('settings-field-error.png')
  assert.equal(await page.getByTestId('profile-Broken model').count(), 0, 'nothing was saved')
  const profiles = await page.evaluate(() => window.go.app.SettingsAPI.Profiles())
  assert.ok(!profiles.some((p) => p.name === 'Broken model'), 'the backend has no such model')
  // Fixed, the message goes and Save works.
  await page.getByTestId('pf-url').fill(model.url)
  assert.equal(await page.getByTestId('err-base_url').count(), 0, 'the error follows the field')
  await page.getByTestId('settings-save').click()
  await page.getByTestId('profile-Broken model').waitFor()
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached', timeout: 3000 })
  await page.evaluate(async () => {
    for (const p of await window.go.app.SettingsAPI.Profiles()) if (p.name === 'Broken model') await window.go.app.SettingsAPI.DeleteProfile(p.id)
  })
})

test('closing Settings with unsaved edits asks first: keep editing, or discard', async () => {
  const { page } = app
  await page.getByTestId('settings').click()
  await page.getByTestId('profile-Scripted model').click()
  await page.getByTestId('pf-name').fill('Renamed model')
  await page.keyboard.press('Escape')
  await page.getByTestId('settings-unsaved').waitFor()
  await shot('settings-unsaved.png')
  await page.getByTestId('unsaved-keep').click()
  assert.equal(await page.getByTestId('pf-name').inputValue(), 'Renamed model', 'the edit is kept')
  await page.getByTestId('settings').isVisible()
  await page.getByRole('button', { name: /^Close$/ }).click()
  await page.getByTestId('unsaved-discard').click()
  await page.getByTestId('settings-dialog').waitFor({ state: 'detached', timeout: 3000 })
  const profiles = await page.evaluate(() => window.go.app.SettingsAPI.Profiles())
  assert.ok(profiles.some((p) => p.name === 'Scripted model') && !profiles.some((p) => p.name === 'Renamed model'), 'discarded')
})

test('Test connection tests what is in the form: a dead address fails though the saved model works', async () => {
  const { page } = app
  await page.getByTestId('settings').click()
  await page.getByTestId('profile-Scripted model').click()
  await page.getByTestId('pf-url').fill('http://127.0.0.1:9/v1')
  await page.getByTestId('pf-test').click()
  const result = page.getByTestId('pf-test-result')
  await result.waitFor({ timeout: 20_000 })
  assert.equal(await result.getAttribute('data-stage'), 'connect', await result.innerText())
  assert.match(await result.innerText(), /Could not reach the server/)
  await shot('settings-test-failed.png')
  // The saved model, tested as it is stored, works.
  await page.getByTestId('pf-url').fill(model.url)
  model.push(toolCall('answer', { text: 'OK' }))
  await page.getByTestId('pf-test').click()
  await page.locator('[data-testid="pf-test-result"][data-stage=""]').waitFor({ timeout: 20_000 })
  assert.match(await result.innerText(), /^Connected/)
  await page.keyboard.press('Escape')
  await page.getByTestId('settings-dialog').waitFor({ state: 'detached', timeout: 3000 })
})

test('a goal re-run from Recent goals replaces the text in the box', async () => {
  const { page } = app
  for (let i = 0; i < 2; i++) {
    // The first run's card stays until the second run's first event: wait
    // for the second run itself to end, or it outlives the test (under load
    // the next test found Start disabled by it, its reply cleared).
    const n = model.requests.length
    model.push(toolCall('finish', { summary: 'Done.', success: true }))
    await start('Open the counter')
    await until(() => model.requests.length > n, 'the model was called', 30_000)
    await until(
      () => page.evaluate(async () => (await window.go.app.RunsAPI.ActiveRuns()).every((r) => ['Done', 'Failed', 'Stopped'].includes(r.state))),
      'the run ended',
      30_000,
    )
    await page.getByTestId('result-card').waitFor({ timeout: 30_000 })
  }
  await page.getByTestId('goal').fill('something else')
  await page.getByTestId('recent-goals').selectOption('Open the counter')
  assert.equal(await page.getByTestId('goal').inputValue(), 'Open the counter')
  await page.getByTestId('recent-goals').selectOption('Open the counter')
  assert.equal(await page.getByTestId('goal').inputValue(), 'Open the counter')
  const values = await page.getByTestId('recent-goals').locator('option').evaluateAll((o) => o.map((x) => x.value).filter(Boolean))
  assert.equal(values.filter((v) => v === 'Open the counter').length, 1)
})

test('Pause and Stop show that they were heard before the engine answers', async () => {
  const { page } = app
  const n = model.requests.length
  model.push(hold)
  await start('Wait for me')
  await until(() => model.requests.length > n, 'the model was called')
  await page.getByTestId('thinking').waitFor()
  // Hold the backend's answer to the command: the window must not wait for it.
  await page.evaluate(() => {
    const a = window.go.app.RunsAPI
    window.__release = {}
    window.__real = {}
    for (const name of ['Pause', 'Stop']) {
      const real = (window.__real[name] = a[name])
      a[name] = (id) => new Promise((ok, fail) => (window.__release[name] = () => real(id).then(ok, fail)))
    }
  })
  const motion = await watchMotion(page)
  try {
    await page.getByTestId('ctl-pause').click()
    await page.locator('[data-testid="ctl-pending"][data-pending="pause"]').getByText('Pausing…').waitFor({ timeout: 2000 })
    await page.evaluate(() => window.__release.Pause())
    await page.getByTestId('run-state').getByText('Paused').waitFor({ timeout: 5000 })
    await page.getByTestId('ctl-pending').waitFor({ state: 'detached', timeout: 2000 })
    await page.keyboard.press('Escape')
    await page.locator('[data-testid="ctl-pending"][data-pending="stop"]').getByText('Stopping…').waitFor({ timeout: 2000 })
    await page.evaluate(() => window.__release.Stop())
    await page.getByTestId('run-state').getByText('Stopped').waitFor({ timeout: 5000 })
    // The person's acts are in the timeline beside the agent's steps.
    await page.locator('[data-testid="person-act"][data-command="pause"]').getByText('Paused the task').waitFor({ timeout: 5000 })
    await page.locator('[data-testid="person-act"][data-command="stop"]').waitFor({ timeout: 5000 })
    // Each new state is drawn once: no button fades as it is enabled or disabled.
    assert.deepEqual(await motion(), [], 'what moved over several frames as the run paused and stopped')
  } finally {
    await page.evaluate(() => {
      for (const r of Object.values(window.__release)) r()
      Object.assign(window.go.app.RunsAPI, window.__real)
    })
  }
})

test('at the window\'s minimum size (960x640) nothing is clipped and Stop is in view', async () => {
  const { page } = app
  await page.setViewportSize({ width: 960, height: 640 })
  try {
    const { scrollW, scrollH } = await page.evaluate(() => ({ scrollW: document.documentElement.scrollWidth, scrollH: document.documentElement.scrollHeight }))
    assert.ok(scrollW <= 960 && scrollH <= 640, `the page is ${scrollW}x${scrollH}`)
    for (const id of ['ctl-stop', 'timeline', 'start', 'devices', 'mirror-screen']) {
      const b = await page.getByTestId(id).first().boundingBox()
      assert.ok(b && b.width > 0 && b.height > 0, `${id} has no room: ${JSON.stringify(b)}`)
      assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.width <= 960 && b.y + b.height <= 640, `${id} is cut off: ${JSON.stringify(b)}`)
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 })
  }
})

test('English renders in the bundled Latin font, not the CJK font\'s full-width glyphs', async () => {
  const faces = await app.page.evaluate(async () => (await document.fonts.load('14px Inter', 'Hello “quoted”')).map((f) => f.family))
  assert.ok(faces.length > 0, 'no bundled Inter face: the Latin text falls back to the CJK font')
})

test('a refused model call offers Open Settings, above the question, and Escape closes only Settings', async () => {
  const { page } = app
  model.push(status(401, 'bad key'))
  await start('Check the phone')
  await page.getByTestId('request-message').waitFor({ timeout: 30_000 })
  await page.getByTestId('request-settings').click()
  await page.getByTestId('settings-dialog').waitFor()
  await page.keyboard.press('Escape')
  await page.getByTestId('settings-dialog').waitFor({ state: 'detached', timeout: 3000 })
  assert.equal(await page.getByTestId('request-message').isVisible(), true, 'the question behind Settings stayed')
  await page.getByTestId('request-stop').click()
  await page.getByTestId('run-state').getByText('Stopped').waitFor({ timeout: 5000 })
})

test('the mirror can have the window to itself, the run\'s controls kept, and give it back', async () => {
  const { page } = app
  const screen = page.getByTestId('mirror-screen')
  await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor()
  const before = await screen.boundingBox()
  await page.getByTestId('mirror-large').click()
  let large
  await until(async () => {
    large = await screen.boundingBox()
    return large.width * large.height > 1.5 * before.width * before.height && large.height > before.height
  }, () => `the mirror grew: ${JSON.stringify(before)} -> ${JSON.stringify(large)}`)
  for (const id of ['devices', 'timeline', 'goal']) assert.equal(await page.getByTestId(id).isVisible(), false, `${id} beside the large mirror`)
  assert.ok(await page.getByTestId('controls').isVisible(), 'the run\'s controls went with the panels')
  await shot('mirror-large.png')
  await page.getByTestId('mirror-large').click()
  // Back among the panels (the welcome above them comes back too, with
  // what it finds now, so the mirror's height is not compared).
  await until(async () => (await screen.boundingBox()).width < large.width * 0.8, 'the mirror back among the panels')
  for (const id of ['devices', 'timeline', 'goal']) assert.ok(await page.getByTestId(id).isVisible(), `${id} back`)
})

/** windowSize is the size of Tandem's own window on the harness's display (xdotool). */
function windowSize() {
  const env = { ...process.env, DISPLAY: app.display }
  const id = execFileSync('xdotool', ['search', '--onlyvisible', '--name', '^Tandem$'], { env }).toString().trim().split('\n')[0]
  const out = execFileSync('xdotool', ['getwindowgeometry', '--shell', id], { env }).toString()
  const v = Object.fromEntries(out.trim().split('\n').map((l) => l.split('=')))
  return { w: Number(v.WIDTH), h: Number(v.HEIGHT), x: Number(v.X), y: Number(v.Y) }
}

test('while the agent drives this computer the window is a bar on top with Pause and Stop, and comes back whole', async () => {
  const { page } = app
  const before = windowSize()
  assert.ok(before.w >= 960 && before.h >= 640, `the window before: ${JSON.stringify(before)}`)
  await page.getByTestId('device-desktop:0').click()
  const n = model.requests.length
  model.push(hold)
  await start('Tidy the desktop')
  await page.getByTestId('desktop-go').click()
  await until(() => model.requests.length > n, 'the model was called')
  const bar = page.getByTestId('compact-bar')
  await bar.waitFor({ timeout: 10_000 })
  assert.match(await bar.innerText(), /Tandem is controlling this computer/)
  assert.match(await bar.innerText(), /Ctrl\+Shift\+Esc/)
  await assertCalm(page, 'while the bar shows')
  // No one can see the mirror behind the bar: its stream closes (this
  // computer's screen is not captured for it) and opens with the window.
  const screen = page.getByTestId('mirror-screen')
  await until(async () => (await screen.getAttribute('data-stream')) === 'closed', 'the hidden mirror closed its stream')
  assert.equal(await page.getByTestId('mirror').isVisible(), false, 'the mirror of this computer shows in the bar')
  await until(() => windowSize().h < 200, () => `the window became a bar: ${JSON.stringify(windowSize())}`)
  const small = windowSize()
  assert.ok(small.w < before.w && small.y === 0, `the bar ${JSON.stringify(small)}`)
  // The page at the bar's size, as the window shows it (the dev binary's
  // own window draws the page in this chromium, not in itself).
  await page.setViewportSize({ width: small.w, height: small.h })
  await shot('compact-bar.png')
  await page.setViewportSize({ width: 1280, height: 800 })
  // The whole window on request, and back to the bar.
  // A new picture is one drawn after "whole window": the mark is cleared
  // first (the count itself may start again with the mirror).
  await screen.evaluate((el) => (el.dataset.shown = ''))
  await page.getByTestId('compact-expand').click()
  await page.getByTestId('desktop-banner').waitFor()
  let seen = {}
  await until(
    async () => {
      seen = await page.getByTestId('mirror').evaluate((m) => {
        const el = m.querySelector('[data-testid="mirror-screen"]')
        const said = m.querySelector('[data-testid="mirror-age"], [data-testid="mirror-path"]')
        return { stream: el.dataset.stream, shown: el.dataset.shown, decoded: el.dataset.decoded, said: said?.textContent, why: said?.getAttribute('title') }
      })
      return seen.stream === 'open' && Number(seen.shown) > 0
    },
    () => `the mirror shows this computer again, a new picture: ${JSON.stringify(seen)}\n${app.logs().split('\n').slice(-25).join('\n')}`,
  )
  await until(() => windowSize().h >= 640, 'the whole window came back')
  await page.getByTestId('desktop-compact').click()
  await bar.waitFor()
  await until(() => windowSize().h < 200, () => `the bar again: ${JSON.stringify(windowSize())}`)
  // Stop from the bar: the run stops and the window is as it was.
  await page.getByTestId('compact-stop').click()
  await page.getByTestId('run-state').getByText('Stopped').waitFor({ timeout: 10_000 })
  await bar.waitFor({ state: 'detached' })
  let last
  await until(() => {
    last = windowSize()
    return last.w === before.w && last.h === before.h
  }, 'the window back at its size').catch((e) => {
    throw new Error(`${e.message}: ${JSON.stringify(last)}, want ${JSON.stringify(before)}`)
  })
})
