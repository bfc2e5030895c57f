// How the page's scroll boxes behave for a person.
//
// moreBelow: a box that scrolls shows when it holds more than it shows below: its foot
// fades (app.css, [data-more]), so that a line cut at its edge reads as
// "scroll for more" rather than as a broken panel: the welcome card and the
// pause panel in a short window, a dialog's body, History's lists. (The
// Steps list goes without: it follows its newest row, at its foot.)

/** A Svelte attachment: keeps el's data-more true while el hides content below. */
export function moreBelow(el: HTMLElement): () => void {
  const measure = () => el.toggleAttribute('data-more', hidesBelow(el))
  const seen = new ResizeObserver(measure)
  seen.observe(el)
  // What it holds growing or shrinking (a list filled in, a field shown).
  const held = new MutationObserver(() => {
    for (const c of el.children) seen.observe(c)
    measure()
  })
  held.observe(el, { childList: true })
  for (const c of el.children) seen.observe(c)
  el.addEventListener('scroll', measure, { passive: true })
  return () => {
    seen.disconnect()
    held.disconnect()
    el.removeEventListener('scroll', measure)
  }
}

/** Whether el, a scrolling box, hides content below what it shows. */
function hidesBelow(el: { scrollTop: number; clientHeight: number; scrollHeight: number }): boolean {
  return el.scrollTop + el.clientHeight < el.scrollHeight - 1
}

/**
 * keepFoot keeps a list at its foot, where its newest row is: toFoot scrolls
 * it there (a new row), and while it is there it stays there when it gets
 * shorter (the pause panel opening above it, a smaller window). Scrolled up
 * by the person, it stays where they put it until the next toFoot.
 *
 * A scroll event comes a frame after its scroll: the event of toFoot's own
 * scroll may come after the list got shorter in that same frame, and then
 * the list is no longer at its foot. It is still not the person's scroll,
 * so it does not let go of the foot (the newest row, "Paused the task",
 * was left 158 px below the edge on a busy machine).
 */
export function keepFoot(): { attach: (el: HTMLElement) => () => void; toFoot: () => void } {
  let el: HTMLElement | null = null
  let atFoot = true
  let ours = -1 // where toFoot put the list last
  const toFoot = () => {
    if (!el) return
    el.scrollTop = el.scrollHeight
    ours = el.scrollTop
    atFoot = true
  }
  const attach = (node: HTMLElement) => {
    el = node
    const onScroll = () => (atFoot = node.scrollTop === ours || node.scrollTop + node.clientHeight >= node.scrollHeight - 2)
    const resized = new ResizeObserver(() => {
      if (atFoot) toFoot()
    })
    resized.observe(node)
    node.addEventListener('scroll', onScroll, { passive: true })
    return () => {
      resized.disconnect()
      node.removeEventListener('scroll', onScroll)
      if (el === node) el = null
    }
  }
  return { attach, toFoot }
}
