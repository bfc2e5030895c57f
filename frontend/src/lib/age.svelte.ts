// The age of a kept picture, ticking once a second while no fresh picture
// can come: the main mirror and each tile date a picture this way instead of
// calling it live.
import { pictureAge } from './mirror'

type Status = 'idle' | 'connecting' | 'live' | 'lost'

/**
 * pictureClock follows read() (a mirror's status and when its last picture
 * came) and gives the picture's age in whole seconds, or null while live or
 * before any picture. Call it while a component initialises: its clock runs
 * only while the picture is stale and stops with the component.
 */
export function pictureClock(read: () => { status: Status; pictureAt: number }): { readonly age: number | null } {
  let now = $state(Date.now())
  $effect(() => {
    const { status } = read()
    if (status !== 'connecting' && status !== 'lost') return
    now = Date.now()
    const t = setInterval(() => (now = Date.now()), 1000)
    return () => clearInterval(t)
  })
  const age = $derived.by(() => {
    const { status, pictureAt } = read()
    return pictureAge(status, pictureAt, now)
  })
  return {
    get age() {
      return age
    },
  }
}
