// The age of a kept picture, ticking with the page's clock while no fresh
// picture can come: the main mirror and each tile date a picture this way
// instead of calling it live.
import { pictureAge } from './mirror'
import { seconds } from './clock.svelte'

type Status = 'idle' | 'connecting' | 'live' | 'lost'

/**
 * pictureClock follows read() (a mirror's status and when its last picture
 * came) and gives the picture's age in whole seconds, or null while live or
 * before any picture. Call it while a component initialises: its clock runs
 * only while the picture is stale and stops with the component.
 */
export function pictureClock(read: () => { status: Status; pictureAt: number }): { readonly age: number | null } {
  const clock = seconds(() => {
    const { status } = read()
    return status === 'connecting' || status === 'lost'
  })
  const age = $derived.by(() => {
    const { status, pictureAt } = read()
    return pictureAge(status, pictureAt, Math.max(clock.now, pictureAt))
  })
  return {
    get age() {
      return age
    },
  }
}
