// The welcome at first start with a private adb port (issue 49 item 12):
// the app starts the server that same second, so the first check may find
// no answer; the card asks again and says so once the server answers,
// never keeping a stale "did not answer".
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { flushSync, mount, unmount } from 'svelte'
import Welcome from './Welcome.svelte'

let app: Record<string, unknown> | null = null
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
})
afterEach(() => {
  if (app) unmount(app)
  app = null
  document.body.innerHTML = ''
  delete window.go
  vi.useRealTimers()
})

it('asks adb again until its server answers', async () => {
  const adb = (ok: boolean) => ({ installed: true, path: '/usr/bin/adb', serverOk: ok, devices: [], error: ok ? '' : 'adb devices: exit status 1' })
  const answers = [adb(false), adb(true)]
  const check = vi.fn(async () => ({ adb: answers.shift() ?? adb(true), modelServers: [], vphone: true }))
  window.go = { app: { SettingsAPI: { WelcomeCheck: check } } } as never
  const target = document.createElement('div')
  document.body.append(target)
  app = mount(Welcome, { target, props: { onDone: async () => {}, onModel: () => {} } })
  await vi.waitFor(() => expect(target.textContent).toContain('did not answer'))
  await vi.advanceTimersByTimeAsync(3000)
  flushSync()
  await vi.waitFor(() => expect(target.textContent).toContain('no phone is connected'))
  expect(target.textContent).not.toContain('did not answer')
  expect(check).toHaveBeenCalledTimes(2)
})
