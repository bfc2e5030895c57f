// The browser e2e harness: the real Go backend (the dev-tagged binary) under
// a private Xvfb display, serving the real built frontend with working
// bindings, driven by playwright-core in Debian's chromium.
//
//   const app = await startApp({ env: { LANG: 'en_US.UTF-8' } })
//   await app.page.click(...)
//   await app.stop()
//
// Later suites reuse it: startApp takes extra env (e.g. an adb server port)
// and exposes the app's config dir so a test can seed or inspect settings.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, existsSync, writeFileSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

const here = dirname(fileURLToPath(import.meta.url))
export const repoRoot = resolve(here, '..', '..')
export const artifactsDir = join(repoRoot, 'test-artifacts')

export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium'
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** freePort asks the kernel for an unused TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer()
    s.unref()
    s.on('error', rej)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => res(port))
    })
  })
}

/** startXvfb starts a private display; Xvfb picks a free number (-displayfd). */
export function startXvfb(size = '1280x800x24') {
  return new Promise((res, rej) => {
    const p = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', size, '-nolisten', 'tcp', '-noreset'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    })
    let out = ''
    const timer = setTimeout(() => rej(new Error('Xvfb did not report a display in 10 s')), 10_000)
    p.on('error', (e) => {
      clearTimeout(timer)
      rej(new Error(`cannot start Xvfb (run make test, which installs it): ${e.message}`))
    })
    p.stdio[3].on('data', (d) => {
      out += d.toString()
      if (out.includes('\n')) {
        clearTimeout(timer)
        res({ display: ':' + out.trim(), stop: () => p.kill('SIGKILL') })
      }
    })
  })
}

async function waitHTTP(url, proc, logs, ms = 30_000) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`tandem-dev exited with ${proc.exitCode}:\n${logs()}`)
    try {
      const r = await fetch(url)
      if (r.ok) return
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`tandem-dev did not serve ${url} within ${ms} ms:\n${logs()}`)
}

/**
 * startADB starts a private adb server on a free port that never scans for
 * emulators, so tests never touch a developer's real phones or server.
 */
export async function startADB() {
  const env = { ...process.env, ADB_LOCAL_TRANSPORT_MAX_PORT: '0' }
  const start = (port) =>
    new Promise((res, rej) => {
      const p = spawn('adb', ['-P', String(port), 'start-server'], { env, stdio: ['ignore', 'ignore', 'pipe'] })
      let said = ''
      p.stderr.on('data', (b) => (said += b))
      p.on('error', (e) => rej(new Error(`cannot start adb (run make test, which installs it): ${e.message}`)))
      p.on('exit', (code) => (code === 0 ? res() : rej(new Error(`adb start-server on port ${port} exited ${code}: ${said.trim()}`))))
    })
  // A free port may be taken by another program between the kernel's
  // answer and adb's bind (seen once in a whole run: adb exited 255 within
  // 50 ms): a new port is tried, three times in all.
  let port
  for (let attempt = 1; ; attempt++) {
    port = await freePort()
    try {
      await start(port)
      break
    } catch (e) {
      if (attempt === 3 || /cannot start adb/.test(e.message)) throw e
      console.error(`${e.message}; trying another port`)
    }
  }
  return {
    port,
    env: { TANDEM_ADB_PORT: String(port), ADB_LOCAL_TRANSPORT_MAX_PORT: '0' },
    stop: () =>
      new Promise((res) => {
        const p = spawn('adb', ['-P', String(port), 'kill-server'], { env, stdio: 'ignore' })
        p.on('exit', res)
        p.on('error', res)
      }),
  }
}

/**
 * startPhone runs `tandem-dev vphone` attached to the adb server on port
 * and resolves to its process and serial once it is attached. With
 * opts.events the phone keeps its own log of inputs in that file, one JSON
 * line each ({kind, args, x, y, at}), written as each input arrives: what a
 * test reads to know what reached the phone, and when.
 */
export function startPhone(port, opts = {}) {
  const bin = process.env.TANDEM_DEV_BIN || join(repoRoot, 'build/bin/tandem-dev')
  const args = ['vphone', '--adb-port', String(port), ...(opts.events ? ['--events', opts.events] : [])]
  return new Promise((res, rej) => {
    const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    const timer = setTimeout(() => rej(new Error('the virtual phone did not start in 20 s')), 20_000)
    p.stdout.on('data', (d) => {
      out += d
      if (out.includes('\n')) {
        clearTimeout(timer)
        res({ proc: p, serial: out.trim() })
      }
    })
    p.on('exit', (code) => rej(new Error(`tandem vphone exited ${code}`)))
  })
}

/** phoneEvents reads a phone's event log (startPhone's opts.events); at is in ms since the epoch, fractions kept. */
export function phoneEvents(file) {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const e = JSON.parse(l)
      const m = e.at.match(/^(.*T\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/)
      return { ...e, ms: Date.parse(m[1] + m[3]) + Number('0' + (m[2] ?? '')) * 1000 }
    })
}

/**
 * addModel adds a custom model profile in Settings, as a person would
 * (its name, the server's URL, the model), saves it and closes Settings.
 */
export async function addModel(page, url, name = 'Scripted model', modelName = 'scripted-model') {
  await page.getByTestId('settings').click()
  await page.getByTestId('add-model').selectOption('custom')
  await page.getByTestId('pf-name').fill(name)
  await page.getByTestId('pf-url').fill(url)
  await page.getByTestId('pf-model').fill(modelName)
  await page.getByTestId('settings-save').click()
  await page.getByTestId(`profile-${name}`).waitFor()
  await page.keyboard.press('Escape')
  await page.getByTestId('settings-dialog').waitFor({ state: 'detached' })
}

/**
 * startApp starts Xvfb, a private adb server, the dev binary and chromium,
 * and opens the app.
 * opts.env adds environment variables for the binary; opts.configDir reuses a
 * config directory (to test persistence across restarts); opts.prepare(page)
 * runs before the app is opened (to route its traffic, say).
 */
export async function startApp(opts = {}) {
  const bin = process.env.TANDEM_DEV_BIN || join(repoRoot, 'build/bin/tandem-dev')
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run make e2e (it builds it)`)
  const xvfb = await startXvfb()
  const adb = opts.adb ?? (await startADB())
  const ownConfig = !opts.configDir
  const configDir = opts.configDir || mkdtempSync(join(tmpdir(), 'tandem-e2e-cfg-'))
  const dataDir = mkdtempSync(join(tmpdir(), 'tandem-e2e-data-'))
  // What the app would open with the system's program (a report) is written
  // down here instead of starting a browser (TANDEM_OPENER).
  const openedLog = join(dataDir, 'opened.log')
  const opener = join(dataDir, 'opener.sh')
  writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${openedLog}'\n`, { mode: 0o755 })
  const port = await freePort()
  // The dev binary's server demands a per-launch token (as the mirror does),
  // and checks Origin and Host: the page is opened with the token, which
  // the binary then keeps in a same-site cookie.
  const token = randomBytes(16).toString('hex')
  let log = ''
  const proc = spawn(bin, ['-devserver', `127.0.0.1:${port}`, '-assetdir', join(repoRoot, 'frontend/dist')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DISPLAY: xvfb.display,
      LANG: 'en_US.UTF-8',
      TANDEM_CONFIG_DIR: configDir,
      TANDEM_DATA_DIR: dataDir,
      TANDEM_DEV_TOKEN: token,
      TANDEM_OPENER: opener,
      ...adb.env,
      ...(opts.env || {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  proc.stdout.on('data', (d) => (log += d))
  proc.stderr.on('data', (d) => (log += d))
  const url = `http://127.0.0.1:${port}/?token=${token}`
  let browser
  try {
    await waitHTTP(url, proc, () => log)
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: chromiumArgs,
    })
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: opts.locale || 'en-US' })
    const page = await context.newPage()
    const pageErrors = []
    page.on('pageerror', (e) => pageErrors.push(e))
    await opts.prepare?.(page)
    await page.goto(url)
    await page.waitForFunction(() => !!window.go?.app?.RunsAPI, null, { timeout: 15_000 })
    return {
      page,
      browser,
      url,
      /** the private X display the binary's window is on */
      display: xvfb.display,
      configDir,
      dataDir,
      adb,
      pageErrors,
      logs: () => log,
      /** the files the app opened with the system's program, in order */
      opened: () => (existsSync(openedLog) ? readFileSync(openedLog, 'utf8').split('\n').filter(Boolean) : []),
      async stop() {
        await browser?.close().catch(() => {})
        proc.kill('SIGKILL')
        xvfb.stop()
        if (!opts.adb) await adb.stop()
        if (ownConfig) rmSync(configDir, { recursive: true, force: true })
        rmSync(dataDir, { recursive: true, force: true })
      },
    }
  } catch (e) {
    await browser?.close().catch(() => {})
    proc.kill('SIGKILL')
    xvfb.stop()
    if (!opts.adb) await adb.stop()
    throw e
  }
}

/**
 * endlessAnimations lists the page's running endless CSS animations. None
 * should run: what moves by itself moves with the page's clock
 * (lib/clock.svelte.ts), so that it all changes at once.
 */
function endlessAnimations(page) {
  return page.evaluate(() =>
    document
      .getAnimations()
      .filter((a) => a.playState === 'running' && a.effect?.getTiming().iterations === Infinity)
      .map((a) => `${a.animationName ?? ''} on ${a.effect.target?.tagName}.${a.effect.target?.className}`),
  )
}

/**
 * changeMoments watches the page for ms while nothing is done to it, and
 * returns the moments its document changed, changes less than 100 ms apart
 * counted as one (one drawing of the window), each with what changed.
 */
function changeMoments(page, ms) {
  return page.evaluate(
    (ms) =>
      new Promise((done) => {
        const moments = []
        const describe = (r) => {
          const el = r.target.nodeType === 1 ? r.target : r.target.parentElement
          return `${el?.tagName}.${el?.getAttribute('class') ?? ''}${el?.dataset?.testid ? '#' + el.dataset.testid : ''} ${r.type}${r.attributeName ? ' ' + r.attributeName : ''}`
        }
        // A data-* attribute no style reads (data-frame: the picture's size,
        // for tests) repaints nothing; app.css reads data-more and data-theme.
        const painted = (r) => r.type !== 'attributes' || !r.attributeName?.startsWith('data-') || ['data-more', 'data-theme'].includes(r.attributeName)
        const seen = new MutationObserver((all) => {
          const records = all.filter(painted)
          if (!records.length) return
          const t = performance.now()
          const last = moments[moments.length - 1]
          if (last && t - last.at < 100) last.what.push(...records.map(describe))
          else moments.push({ at: t, what: records.map(describe) })
          // A change that starts a transition is drawn on every frame of it
          // (what the pointer hovers aside: the person's doing).
          setTimeout(() => {
            for (const a of document.getAnimations()) {
              const el = a.effect?.target
              if (a.playState === 'running' && !el?.matches(':hover')) moments[moments.length - 1].what.push(`moving: ${a.transitionProperty ?? a.animationName} on ${el?.tagName}.${el?.getAttribute('class')}`)
            }
          }, 30)
        })
        seen.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true })
        setTimeout(() => {
          seen.disconnect()
          done(moments.map((m) => ({ at: Math.round(m.at), what: [...new Set(m.what)].sort((a, b) => b.startsWith('moving') - a.startsWith('moving')).slice(0, 6) })))
        }, ms)
      }),
    ms,
  )
}

/**
 * watchMotion starts noting what moves over several frames after a change
 * of the page (a transition, an animation), leaving out what the pointer
 * hovers; the function it returns stops and gives what moved. A change of
 * the run's state should be drawn once, not faded over frames, each a
 * repaint in software in Tandem's window.
 */
export async function watchMotion(page) {
  await page.evaluate(() => {
    const moved = new Set()
    const seen = new MutationObserver(() =>
      setTimeout(() => {
        for (const a of document.getAnimations()) {
          const el = a.effect?.target
          if (a.playState === 'running' && !el?.matches(':hover')) moved.add(`${a.transitionProperty ?? a.animationName} on ${el?.tagName}.${el?.getAttribute('class')}${el?.dataset?.testid ? '#' + el.dataset.testid : ''}`)
        }
      }, 30),
    )
    seen.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true })
    window.__motion = { moved, seen }
  })
  return () =>
    page.evaluate(() => {
      window.__motion.seen.disconnect()
      return [...window.__motion.moved]
    })
}

/**
 * assertCalm fails unless, while the page is left alone, something on it
 * moves (the marks of a live run) and all of it changes together, once a
 * second at most: each change is a repaint, in software in Tandem's window.
 */
export async function assertCalm(page, when) {
  const anims = await endlessAnimations(page)
  if (anims.length) throw new Error(`${when}, these animate by themselves, not with the page's clock: ${JSON.stringify(anims)}`)
  const moments = await changeMoments(page, 4500)
  if (moments.length < 2) throw new Error(`${when}: nothing moved in 4.5 s (the marks of a live run move): ${JSON.stringify(moments)}`)
  // 4.5 s hold at most five whole seconds; one more for a change of the run's own.
  if (moments.length > 6) throw new Error(`${when}, the page changed ${moments.length} times in 4.5 s, not once a second: ${JSON.stringify(moments)}`)
  const moving = moments.filter((m) => m.what.some((w) => w.startsWith('moving: ')))
  if (moving.length) throw new Error(`${when}, a change moves over several frames (a transition): ${JSON.stringify(moving)}`)
}
