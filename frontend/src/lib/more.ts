// A box that scrolls shows when it holds more than it shows below: its foot
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
