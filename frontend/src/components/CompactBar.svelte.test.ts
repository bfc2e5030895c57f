// While the agent drives this computer the window is a bar; a request on
// another device shows there too, and leads to it (issue 49 item 9).
import { afterEach, expect, it, vi } from 'vitest'
import { flushSync, mount, unmount } from 'svelte'
import CompactBar from './CompactBar.svelte'
import { store } from '../lib/store.svelte'
import { ui } from '../lib/ui.svelte'

let app: Record<string, unknown> | null = null
afterEach(() => {
  if (app) unmount(app)
  app = null
  document.body.innerHTML = ''
})

it('says a request on another device needs the person and opens the window on it', () => {
  store.selected = 'desktop:0'
  ui.view = 'tiles'
  const onExpand = vi.fn()
  const target = document.createElement('div')
  document.body.append(target)
  app = mount(CompactBar, { target, props: { stopKey: 'Ctrl+Shift+Esc', onExpand, needs: [{ run: 'r2', device: 'phone-2', kind: 'confirm' }] } })
  flushSync()
  const b = target.querySelector<HTMLButtonElement>('[data-testid="compact-needs"]')!
  expect(b.textContent).toBe('Needs you (1)')
  b.click()
  flushSync()
  expect(onExpand).toHaveBeenCalledOnce()
  expect(store.selected).toBe('phone-2')
  expect(ui.view).toBe('one')
})
