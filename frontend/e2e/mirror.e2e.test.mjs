// The live phone mirror through the real UI and the real Go backend: a virtual
// phone (`tandem-dev vphone`) behind a private adb server streams H.264 over
// scrcpy (its scrcpy endpoint; TANDEM_SCRCPY_SERVER points the app at a jar
// file to push) and over screenrecord (no jar). Chromium decodes the video
// with WebCodecs; the test counts decoded frames and drags on the mirror.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp, startADB, startPhone, artifactsDir, repoRoot } from './harness.mjs'

let adb
let phone
let serial
let dir

function shell(...args) {
  return execFileSync('adb', ['-P', String(adb.port), '-s', serial, 'shell', ...args], {
    env: { ...process.env, ADB_LOCAL_TRANSPORT_MAX_PORT: '0' },
  }).toString()
}

/** firstItem is the number of the list's first visible row, from the phone's UI dump. */
function firstItem() {
  const m = shell('uiautomator dump /dev/tty').match(/text="Item (\d+)"/)
  return m ? Number(m[1]) : 0
}

async function until(what, fn, ms = 10_000) {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** openMirror starts the app, selects the phone and waits for decoded frames on the wanted path. */
async function openMirror(env, path) {
  const configDir = mkdtempSync(join(dir, 'cfg-'))
  writeFileSync(join(configDir, 'settings.json'), JSON.stringify({ welcome_done: true }))
  const app = await startApp({ adb, configDir, env })
  const { page } = app
  await page.getByTestId(`device-${serial}`).click()
  await page.locator(`[data-testid="mirror-path"][data-path="${path}"]`).waitFor({ timeout: 20_000 })
  const screen = page.getByTestId('mirror-screen')
  await until('decoded frames', async () => Number((await screen.getAttribute('data-decoded')) || 0) >= 1, 15_000)
  return app
}

async function decoded(page) {
  return Number((await page.getByTestId('mirror-screen').getAttribute('data-decoded')) || 0)
}

/** drag presses on the mirror's lower middle and moves up by steps; it returns the release function. */
async function drag(page) {
  const box = await page.getByTestId('mirror-screen').boundingBox()
  const x = box.x + box.width / 2
  const y0 = box.y + box.height * 0.75
  const y1 = box.y + box.height * 0.35
  await page.mouse.move(x, y0)
  await page.mouse.down()
  for (let i = 1; i <= 12; i++) {
    await page.mouse.move(x, y0 + ((y1 - y0) * i) / 12)
    await new Promise((r) => setTimeout(r, 30))
  }
  return () => page.mouse.up()
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tandem-mirror-e2e-'))
  adb = await startADB()
  const p = await startPhone(adb.port)
  phone = p.proc
  serial = p.serial
})
after(async () => {
  phone?.kill('SIGINT')
  await adb?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('over scrcpy the mirror decodes H.264 in chromium, a drag reaches the phone live as one gesture, and turning the phone turns the mirror', async () => {
  const jar = join(dir, 'scrcpy-server')
  writeFileSync(jar, 'PK\x03\x04 a stand-in jar: the virtual phone plays scrcpy-server 3.3.4')
  shell('monkey -p com.tandem.list -c android.intent.category.LAUNCHER 1')
  const app = await openMirror({ TANDEM_SCRCPY_SERVER: jar }, 'scrcpy')
  try {
    const { page } = app
    assert.match(await page.getByTestId('mirror-path').getAttribute('title'), /scrcpy-server 3\.3\.4 streams H\.264/)
    assert.match(await page.getByTestId('mirror-path').textContent(), /scrcpy 3\.3\.4/)
    await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor()
    assert.equal(firstItem(), 1)
    const before = await decoded(page)
    const release = await drag(page)
    // The list follows the finger before it lifts: moves arrive live.
    const moved = await until('the list moving while the button is down', () => firstItem() > 1)
    await release()
    await until('the release', () => firstItem() >= moved)
    const after = await until('frames of the moving list', async () => ((await decoded(page)) > before + 3 ? decoded(page) : 0))
    assert.ok(after > before + 3, `decoded ${before} -> ${after}`)
    mkdirSync(artifactsDir, { recursive: true })
    await page.screenshot({ path: join(artifactsDir, 'e2e-mirror-scrcpy.png') })
    // Turning the phone changes the mirror's shape (a new config from the server).
    shell('settings put system accelerometer_rotation 0; settings put system user_rotation 1')
    await page.locator('[data-testid="mirror-screen"][data-frame="2400x1080"]').waitFor({ timeout: 15_000 })
    await page.screenshot({ path: join(artifactsDir, 'e2e-mirror-scrcpy-landscape.png') })
    shell('settings put system user_rotation 0')
    await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor({ timeout: 15_000 })
    assert.deepEqual(app.pageErrors, [])
  } finally {
    await app.stop()
  }
})

test('without a scrcpy-server the mirror streams screenrecord and a drag arrives as a swipe', async () => {
  shell('monkey -p com.tandem.list -c android.intent.category.LAUNCHER 1')
  const start = firstItem()
  const app = await openMirror({ TANDEM_SCRCPY_SERVER: '' }, 'screenrecord')
  try {
    const { page } = app
    assert.match(await page.getByTestId('mirror-path').getAttribute('title'), /No scrcpy-server was found/)
    const release = await drag(page)
    await new Promise((r) => setTimeout(r, 300))
    assert.equal(firstItem(), start, 'screenrecord takes no live input: nothing moves before the release')
    await release()
    await until('the swipe', () => firstItem() > start)
    assert.deepEqual(app.pageErrors, [])
  } finally {
    await app.stop()
  }
})

const fixtures = join(repoRoot, 'internal', 'scrcpy', 'testdata')

test('a scrcpy-server 2.7 mirrors over scrcpy and the label names it; a 1.x one is called too old, in Chinese too', async () => {
  let app = await openMirror({ TANDEM_SCRCPY_SERVER: join(fixtures, 'scrcpy-server-2.7.jar') }, 'scrcpy')
  try {
    const label = app.page.getByTestId('mirror-path')
    assert.match(await label.textContent(), /scrcpy 2\.7/)
    assert.match(await label.getAttribute('title'), /scrcpy-server 2\.7 streams H\.264/)
  } finally {
    await app.stop()
  }
  app = await openMirror({ TANDEM_SCRCPY_SERVER: join(fixtures, 'scrcpy-server-1.25.jar') }, 'screenrecord')
  try {
    const { page } = app
    const label = page.getByTestId('mirror-path')
    assert.match(await label.getAttribute('title'), /scrcpy-server 1\.25 is too old \(Tandem speaks 2\.0 and newer\)/)
    await page.getByTestId('language').selectOption('zh-CN')
    await until('the Chinese tooltip', async () => /scrcpy-server 1\.25 版本太旧/.test((await label.getAttribute('title')) ?? ''))
    await page.getByTestId('language').selectOption('en')
  } finally {
    await app.stop()
  }
})

test('a window without an H.264 decoder gets pictures and is told why', async () => {
  const configDir = mkdtempSync(join(dir, 'cfg-'))
  writeFileSync(join(configDir, 'settings.json'), JSON.stringify({ welcome_done: true }))
  const app = await startApp({ adb, configDir, env: { TANDEM_SCRCPY_SERVER: '' } })
  try {
    const { page } = app
    // WebKitGTK without gstreamer1.0-libav cannot decode H.264; play that window.
    await page.addInitScript(() => {
      delete window.VideoDecoder
    })
    await page.reload()
    await page.waitForFunction(() => !!window.go?.app?.RunsAPI)
    await page.getByTestId(`device-${serial}`).click()
    const label = page.locator('[data-testid="mirror-path"][data-path="screencap"]')
    await label.waitFor({ timeout: 20_000 })
    assert.match(await label.getAttribute('title'), /gstreamer1\.0-libav/)
    await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor({ timeout: 15_000 })
    assert.deepEqual(app.pageErrors, [])
  } finally {
    await app.stop()
  }
})

/**
 * openClearing starts the app on the phone with a window whose decoded
 * pictures draw nothing, as WebKitGTK 2.50's do when its conversion of a
 * frame times out under load: the first one and the next after clearNext
 * is set, or every one (all). Each animation frame notes a label saying Live
 * over a clear mirror (window.liveOverBlank).
 */
async function openClearing(all) {
  const configDir = mkdtempSync(join(dir, 'cfg-'))
  writeFileSync(join(configDir, 'settings.json'), JSON.stringify({ welcome_done: true }))
  const app = await startApp({ adb, configDir, env: { TANDEM_SCRCPY_SERVER: '' } })
  const { page } = app
  await page.addInitScript((all) => {
    const Real = window.VideoDecoder
    window.clearNext = true
    window.VideoDecoder = class extends Real {
      constructor(init) {
        super({
          ...init,
          output: (f) => {
            if (!window.clearNext && !all) return init.output(f)
            window.clearNext = false
            const c = new OffscreenCanvas(f.displayWidth, f.displayHeight)
            c.getContext('2d').clearRect(0, 0, c.width, c.height)
            const clear = new VideoFrame(c, { timestamp: f.timestamp })
            f.close()
            init.output(clear)
          },
        })
      }
    }
    window.liveOverBlank = []
    const watch = () => {
      const label = document.querySelector('[data-testid="mirror-path"]')
      const canvas = document.querySelector('[data-testid="mirror-screen"] canvas')
      if (label && canvas && canvas.width > 0 && /Live/.test(label.textContent)) {
        const px = canvas.getContext('2d').getImageData(canvas.width >> 1, canvas.height >> 1, 1, 1).data
        if (px[3] === 0) window.liveOverBlank.push(label.textContent.trim())
      }
      requestAnimationFrame(watch)
    }
    requestAnimationFrame(watch)
  }, all)
  await page.reload()
  await page.waitForFunction(() => !!window.go?.app?.RunsAPI)
  await page.getByTestId(`device-${serial}`).click()
  return app
}

/** pictureShown says whether the mirror's canvas holds a picture at its middle. */
function pictureShown(page) {
  return page.evaluate(() => {
    const c = document.querySelector('[data-testid="mirror-screen"] canvas')
    return c.width > 0 && c.getContext('2d').getImageData(c.width >> 1, c.height >> 1, 1, 1).data[3] > 0
  })
}

test('a picture that draws nothing is asked for again: the mirror never says Live over a blank or an old picture, and shows the phone', async () => {
  // The phone's screen holds still: screenrecord sends one picture, and no
  // other comes until the screen changes.
  shell('monkey -p com.tandem.counter -c android.intent.category.LAUNCHER 1')
  const app = await openClearing(false)
  try {
    const { page } = app
    await page.locator('[data-testid="mirror-path"][data-path="screenrecord"]').waitFor({ timeout: 20_000 })
    await until('the phone on the mirror', () => pictureShown(page), 15_000).catch(async (e) => {
      const label = await page.getByTestId('mirror-path').textContent()
      throw new Error(`${e.message}; the label said “${label}”, the mirror was clear`)
    })
    assert.deepEqual(await page.evaluate(() => window.liveOverBlank.slice(0, 3)), [], 'the label said Live over a clear mirror')
    assert.match(await page.getByTestId('mirror-path').textContent(), /^Live · screenrecord$/)
    // The clear picture did come, and was asked for again.
    assert.equal(await page.getByTestId('mirror-screen').getAttribute('data-undrawn'), '1')

    // A later picture that draws nothing: the mirror must not go on showing
    // the screen before it.
    const picture = () => page.evaluate(() => {
      const c = document.querySelector('[data-testid="mirror-screen"] canvas')
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data
      let h = 0
      for (let i = 0; i < d.length; i += 4) h = (h * 31 + d[i] + 3 * d[i + 1] + 7 * d[i + 2]) >>> 0
      return h
    })
    const before = await picture()
    await page.evaluate(() => { window.clearNext = true })
    shell('input tap 760 1200') // +1: the counter's number changes
    await until('the mirror showing the tap’s change', async () => (await picture()) !== before, 15_000)
    assert.equal(await page.evaluate(() => window.clearNext), false, 'no picture came after the tap')
    assert.equal(await page.getByTestId('mirror-screen').getAttribute('data-undrawn'), '2')
    assert.deepEqual(await page.evaluate(() => window.liveOverBlank.slice(0, 3)), [], 'the label said Live over a clear mirror')
    assert.deepEqual(app.pageErrors, [])
  } finally {
    await app.stop()
  }
})

test('a window that draws no picture of the video gets screenshots, and says why', async () => {
  const app = await openClearing(true)
  try {
    const { page } = app
    await page.locator('[data-testid="mirror-path"][data-path="screencap"]').waitFor({ timeout: 30_000 })
    await until('the phone on the mirror', () => pictureShown(page), 15_000)
    assert.ok(Number(await page.getByTestId('mirror-screen').getAttribute('data-undrawn')) >= 3, 'three pictures drew nothing before the screenshots')
    assert.match(await page.getByTestId('mirror-screen').textContent(), /drew no picture from the phone’s video, so it shows screenshots instead/)
    assert.match(await page.getByTestId('mirror-path').getAttribute('title'), /drew no picture/, 'the label’s tooltip says the same')
    mkdirSync(artifactsDir, { recursive: true })
    await page.screenshot({ path: join(artifactsDir, 'e2e-mirror-undrawn.png') })
    assert.deepEqual(app.pageErrors, [])
  } finally {
    await app.stop()
  }
})
