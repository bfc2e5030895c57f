// The chores' list loads after the dialog opens. A person who clicked New
// and typed before it came must keep their new chore: the load must not
// put the first saved chore in the form under their typing, where Save or
// Run would write it over that chore (a busy machine's e2e run renamed
// "Count one" to the new chore's name this way).
import { afterEach, expect, it, vi } from 'vitest'
import { flushSync, mount, unmount } from 'svelte'
import ChoresDialog from './ChoresDialog.svelte'

let app: Record<string, unknown> | null = null
afterEach(() => {
  if (app) unmount(app)
  app = null
  document.body.innerHTML = ''
  delete window.go
})

it('keeps a new chore begun before the list came', async () => {
  let answer: (c: unknown[]) => void = () => {}
  const list = vi.fn(() => new Promise<unknown[]>((r) => (answer = r)))
  window.go = { app: { ChoresAPI: { Chores: list } } } as never
  const target = document.createElement('div')
  document.body.append(target)
  app = mount(ChoresDialog, { target, props: { onClose: () => {} } })
  flushSync()
  const q = (id: string) => target.ownerDocument.querySelector(`[data-testid="${id}"]`) as HTMLInputElement
  q('chore-new').click()
  const name = q('chore-name')
  name.value = 'Note'
  name.dispatchEvent(new Event('input', { bubbles: true }))
  flushSync()
  answer([{ id: 'c1', name: 'Count one', goal: 'Add one to the counter', params: [], devices: [] }])
  await vi.waitFor(() => expect(target.ownerDocument.querySelector('[data-testid="chore-item"][data-name="Count one"]')).not.toBeNull())
  flushSync()
  expect(q('chore-name').value).toBe('Note')
  expect(q('chore-goal').value).toBe('')

  // Opened with nothing begun, the first chore is shown as before.
  unmount(app)
  document.body.innerHTML = ''
  const again = document.createElement('div')
  document.body.append(again)
  list.mockImplementation(async () => [{ id: 'c1', name: 'Count one', goal: 'Add one to the counter', params: [], devices: [] }])
  app = mount(ChoresDialog, { target: again, props: { onClose: () => {} } })
  await vi.waitFor(() => expect((again.ownerDocument.querySelector('[data-testid="chore-name"]') as HTMLInputElement).value).toBe('Count one'))
})
