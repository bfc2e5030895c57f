// The app shell through the real UI and the real Go backend.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp, artifactsDir, repoRoot } from './harness.mjs'

/** settingsSaved waits until settings.json holds the wanted value (the UI saves asynchronously). */
async function settingsSaved(dir, key, want) {
  const deadline = Date.now() + 5000
  let got
  while (Date.now() < deadline) {
    try {
      got = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))[key]
      if (got === want) return
    } catch {
      // not written yet
    }
    await new Promise((r) => setTimeout(r, 25))
  }
  assert.equal(got, want, `settings.json ${key}`)
}

let app
before(async () => {
  app = await startApp()
})
after(async () => {
  await app?.stop()
})

test('the shell shows every region; This computer is listed and mirrored live', async () => {
  const { page } = app
  for (const id of ['devices', 'mirror', 'timeline', 'goal', 'controls', 'start']) {
    assert.ok(await page.getByTestId(id).isVisible(), `${id} visible`)
  }
  // The harness's Xvfb display is "This computer": listed, never chosen
  // for the person; once they pick it, mirrored.
  await page.getByTestId('device-desktop:0').waitFor()
  assert.match(await page.getByTestId('devices').innerText(), /This computer/)
  assert.match(await page.getByTestId('mirror').innerText(), /Nothing to show yet/, 'This computer was selected without the person')
  await page.getByTestId('device-desktop:0').click()
  await page.locator('[data-testid="mirror-screen"][data-frame="1280x800"]').waitFor({ timeout: 15_000 })
  assert.match(await page.getByTestId('timeline').innerText(), /No steps yet/)
  assert.equal(await page.getByTestId('start').isDisabled(), true, 'Start needs a goal')
  await page.getByTestId('goal').fill('Open the terminal')
  assert.equal(await page.getByTestId('start').isDisabled(), true, 'Start needs a model')
  assert.ok(await page.getByTestId('goal-settings').isVisible(), 'no way to Settings beside Start')
  await page.getByTestId('goal').fill('')
  mkdirSync(artifactsDir, { recursive: true })
  await page.screenshot({ path: join(artifactsDir, 'e2e-shell-en.png') })
  assert.deepEqual(app.pageErrors, [])
})

/** addSomeModel adds a model (at an address nobody serves) in Settings and closes it. */
async function addSomeModel(page) {
  await page.getByTestId('add-model').selectOption('custom')
  await page.getByTestId('pf-name').fill('Some model')
  await page.getByTestId('pf-url').fill('http://127.0.0.1:9/v1')
  await page.getByTestId('pf-model').fill('some-model')
  await page.getByTestId('settings-save').click()
  await page.getByTestId('profile-Some model').waitFor()
  await page.keyboard.press('Escape')
  await page.getByTestId('settings-dialog').waitFor({ state: 'detached' })
}

/** noModels deletes every model, for the tests that follow. */
async function noModels(page) {
  await page.evaluate(async () => {
    for (const p of await window.go.app.SettingsAPI.Profiles()) await window.go.app.SettingsAPI.DeleteProfile(p.id)
  })
  // The window reads the models again when Settings closes.
  await page.getByTestId('settings').click()
  await page.getByTestId('settings-dialog').waitFor()
  await page.keyboard.press('Escape')
  await page.getByTestId('model-badge').getByText('No model set up').waitFor()
}

test('the first task on This computer asks before Tandem takes the mouse', async () => {
  const { page } = app
  await page.getByTestId('settings').click()
  await addSomeModel(page)
  await page.getByTestId('device-desktop:0').click()
  await page.getByTestId('goal').fill('Open the terminal')
  await page.getByTestId('start').click()
  const ask = page.getByTestId('desktop-confirm')
  await ask.waitFor({ timeout: 5000 })
  assert.match(await ask.innerText(), /Ctrl\+Shift\+Esc/)
  await page.getByTestId('desktop-cancel').click()
  await ask.waitFor({ state: 'detached' })
  assert.deepEqual(await page.evaluate(() => window.go.app.RunsAPI.ActiveRuns()), [], 'a run started without the person\'s yes')
  await page.getByTestId('goal').fill('')
  await noModels(page)
})

test('with no model Start is off and its button opens Settings; once a model is added Start is on', async () => {
  const { page } = app
  await page.getByTestId('device-desktop:0').click()
  await page.getByTestId('goal').fill('Open the terminal')
  assert.equal(await page.getByTestId('start').isDisabled(), true, 'Start is on with no model')
  await page.getByTestId('goal-settings').click()
  await page.getByTestId('settings-dialog').waitFor()
  await addSomeModel(page)
  await page.getByTestId('goal-settings').waitFor({ state: 'detached', timeout: 3000 })
  assert.equal(await page.getByTestId('start').isDisabled(), false, 'Start is off with a model')
  // Leave no model behind for the tests that follow.
  await noModels(page)
  await page.getByTestId('goal').fill('')
})

test('Settings: "Ask the model only once the screen has settled" is off at first, explained, and kept', async () => {
  const { page } = app
  await page.getByTestId('settings').click()
  const box = page.getByTestId('wait-to-ask')
  await box.scrollIntoViewIfNeeded()
  assert.equal(await box.isChecked(), false, 'off at first: the call starts on the first picture')
  const hint = await page.getByTestId('settings-dialog').innerText()
  assert.match(hint, /cancelled if it had not/, 'the trade is said')
  await box.check()
  mkdirSync(artifactsDir, { recursive: true })
  await page.getByTestId('settings-dialog').screenshot({ path: join(artifactsDir, 'e2e-settings-wait-to-ask.png') })
  await page.getByTestId('settings-save').click()
  await settingsSaved(app.configDir, 'wait_to_ask', true)
  await page.keyboard.press('Escape')
  await page.getByTestId('settings-dialog').waitFor({ state: 'detached' })
  await page.getByTestId('settings').click()
  assert.equal(await page.getByTestId('wait-to-ask').isChecked(), true, 'kept')
  await page.getByTestId('wait-to-ask').uncheck()
  await page.getByTestId('settings-save').click()
  await settingsSaved(app.configDir, 'wait_to_ask', false)
  await page.keyboard.press('Escape')
  await page.getByTestId('settings-dialog').waitFor({ state: 'detached' })
})

test('Settings takes a scrcpy-server file: a 1.x one is refused in words, a 3.3.4 one is named and kept', async () => {
  const { page } = app
  const fixtures = join(repoRoot, 'internal', 'scrcpy', 'testdata')
  await page.getByTestId('settings').click()
  const field = page.getByTestId('scrcpy-server')
  await field.fill(join(fixtures, 'scrcpy-server-1.25.jar'))
  await field.press('Tab')
  assert.match(await page.getByTestId('scrcpy-error').innerText(), /scrcpy-server 1\.25, which is too old/)
  assert.equal(await field.getAttribute('aria-invalid'), 'true')
  await page.getByTestId('settings-save').click()
  await page.getByTestId('settings-message').getByText('Fix the fields marked in red first.').waitFor()
  let stored = ''
  try {
    stored = JSON.parse(readFileSync(join(app.configDir, 'settings.json'), 'utf8')).scrcpy_server
  } catch {
    // nothing saved yet
  }
  assert.notEqual(stored, join(fixtures, 'scrcpy-server-1.25.jar'))
  const good = join(fixtures, 'scrcpy-server-3.3.4.jar')
  await field.fill(good)
  await field.press('Tab')
  await page.getByTestId('scrcpy-ok').waitFor()
  assert.match(await page.getByTestId('scrcpy-ok').innerText(), /scrcpy-server 3\.3\.4/)
  await page.getByTestId('settings-save').click()
  await settingsSaved(app.configDir, 'scrcpy_server', good)
  // Leave the search of the usual paths for the tests that follow.
  await field.fill('')
  await page.getByTestId('settings-save').click()
  await settingsSaved(app.configDir, 'scrcpy_server', '')
  await page.keyboard.press('Escape')
  await page.getByTestId('settings-dialog').waitFor({ state: 'detached' })
})

test('About shows the version and commit from the Go backend (a bound method through the UI)', async () => {
  const { page } = app
  const bin = process.env.TANDEM_DEV_BIN
  const want = JSON.parse(execFileSync(bin, ['version', '--json']).toString())
  await page.getByTestId('about').click()
  const dialog = page.getByTestId('about-dialog')
  await dialog.waitFor()
  assert.equal(await page.getByTestId('about-version').innerText(), want.version)
  assert.equal(await page.getByTestId('about-commit').innerText(), want.commit)
  assert.notEqual(want.commit, 'unknown')
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached' })
})

test('switching to Chinese goes through Go, persists, and survives a reload', async () => {
  const { page } = app
  await page.getByTestId('language').selectOption('zh-CN')
  await page.getByText('还没有步骤').waitFor()
  assert.equal(await page.getByTestId('start').innerText(), '开始')
  await settingsSaved(app.configDir, 'language', 'zh-CN')
  await page.reload()
  await page.getByText('还没有步骤').waitFor()
  mkdirSync(artifactsDir, { recursive: true })
  await page.screenshot({ path: join(artifactsDir, 'e2e-shell-zh.png') })
  await page.getByTestId('language').selectOption('en')
  await page.getByText('No steps yet').waitFor()
})

test('dark theme applies and persists', async () => {
  const { page } = app
  await page.getByTestId('theme').selectOption('dark')
  // Applied once the save before it is through (a busy machine: not at once).
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark', null, { timeout: 5000 }).catch(() => {})
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark')
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
  assert.equal(bg, 'rgb(22, 24, 29)')
  await settingsSaved(app.configDir, 'theme', 'dark')
  await page.getByTestId('theme').selectOption('system')
})

test('a damaged settings file is reported, kept aside, and the app still starts', async () => {
  const cfg = mkdtempSync(join(tmpdir(), 'tandem-e2e-corrupt-'))
  writeFileSync(join(cfg, 'settings.json'), '{"language": "zh-CN", "theme": ')
  const broken = await startApp({ configDir: cfg })
  try {
    const notice = broken.page.getByTestId('notice')
    await notice.waitFor()
    assert.match(await notice.innerText(), /damaged/)
    assert.ok(readdirSync(cfg).some((f) => f.startsWith('settings.json.corrupt-')))
    assert.match(await broken.page.getByTestId('timeline').innerText(), /No steps yet/)
  } finally {
    await broken.stop()
    rmSync(cfg, { recursive: true, force: true })
  }
})

test('changes made before the settings have loaded keep the confirmation words', async () => {
  // The window can be clicked before Go has answered GetSettings (a slow
  // start); hold that answer back to make the gap wide.
  const cfg = mkdtempSync(join(tmpdir(), 'tandem-e2e-slow-'))
  writeFileSync(join(cfg, 'settings.json'), JSON.stringify({ language: 'en', policy_words: ['refund', 'pay'] }))
  let held = 0
  const slow = await startApp({
    configDir: cfg,
    prepare: (page) =>
      page.routeWebSocket(/\/wails\/ipc/, (ws) => {
        const server = ws.connectToServer()
        ws.onMessage((m) => server.send(m))
        server.onMessage((m) => {
          if (String(m).includes('GetSettings-')) {
            held++
            setTimeout(() => ws.send(m), 1500)
          } else ws.send(m)
        })
      }),
  })
  try {
    const { page } = slow
    await page.getByTestId('theme').selectOption('dark')
    await page.getByTestId('settings').click()
    await page.getByTestId('add-model').selectOption('custom')
    assert.ok(held >= 1, 'the settings answer was held back')
    await page.getByTestId('pf-name').fill('Late model')
    await page.getByTestId('pf-url').fill('http://127.0.0.1:9/v1')
    await page.getByTestId('pf-model').fill('late-model')
    await page.getByTestId('settings-save').click()
    await page.getByTestId('profile-Late model').waitFor()
    assert.equal(await page.getByTestId('policy-words').inputValue(), 'refund\npay', 'the dialog shows the stored words')
    await settingsSaved(cfg, 'theme', 'dark')
    const saved = JSON.parse(readFileSync(join(cfg, 'settings.json'), 'utf8'))
    assert.deepEqual(saved.policy_words, ['refund', 'pay'], 'the words survive')
    assert.ok(saved.active_profile, 'the new model is the active one')
  } finally {
    await slow.stop()
    rmSync(cfg, { recursive: true, force: true })
  }
})

test('the dev server refuses requests without the token and pages from another origin', async () => {
  const origin = new URL(app.url).origin
  assert.equal((await fetch(`${origin}/`)).status, 401, 'no token')
  assert.equal((await fetch(`${origin}/?token=wrong`)).status, 401, 'wrong token')
  assert.equal((await fetch(app.url, { headers: { Origin: 'http://evil.example' } })).status, 403, 'foreign Origin')
  // A page served from another origin tries the bindings' WebSocket.
  const { createServer } = await import('node:http')
  const evil = createServer((_, res) => res.end('<!doctype html><title>evil</title>'))
  await new Promise((r) => evil.listen(0, '127.0.0.1', r))
  const other = await app.browser.newPage()
  try {
    await other.goto(`http://127.0.0.1:${evil.address().port}/`)
    const opened = await other.evaluate(
      (ws) =>
        new Promise((res) => {
          const s = new WebSocket(ws)
          s.onopen = () => res(true)
          s.onerror = () => res(false)
          s.onclose = () => res(false)
        }),
      `${origin.replace('http', 'ws')}/wails/ipc`,
    )
    assert.equal(opened, false, 'a foreign page opened the bindings socket')
  } finally {
    await other.close()
    evil.close()
  }
})

test('History lists a damaged record with a warning and what could be read', async () => {
  const { page } = app
  const id = 'damaged-run'
  const dir = join(app.dataDir, 'runs', id)
  mkdirSync(dir, { recursive: true })
  const t = '2026-11-23T10:00:00Z'
  const lines = [
    JSON.stringify({ t, kind: 'start', id, goal: 'Count to two', device: 'emulator-5554' }),
    '{"t":"2026-11-23T10:00:01Z","ki\u0000nd":',
    JSON.stringify({ t, kind: 'action', n: 1, action: { type: 'tap', x: 1, y: 2 }, result: 'ok' }),
    JSON.stringify({ t, kind: 'end', end: { state: 'Done', success: true, summary: 'It shows two.', steps: 1, calls: 1, usage: {} } }),
  ]
  writeFileSync(join(dir, 'record.jsonl'), lines.join('\n') + '\n')
  await page.getByTestId('history').click()
  await page.getByTestId(`damaged-${id}`).waitFor()
  assert.match(await page.getByTestId(`damaged-${id}`).innerText(), /1 unreadable lines were skipped/)
  const row = page.getByTestId('past-run').filter({ hasText: 'Count to two' })
  assert.match(await row.innerText(), /It shows two\./)
  await page.getByTestId(`view-${id}`).click()
  await page.getByTestId('history-damaged').waitFor()
  assert.equal(await page.getByTestId('history-step').count(), 1)
  await page.getByTestId('history-dialog').press('Escape') // the clicked button is gone: focus the dialog
  await page.getByTestId('history-dialog').waitFor({ state: 'detached' })
})
