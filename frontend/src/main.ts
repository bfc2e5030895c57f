import { mount } from 'svelte'
// Inter, bundled (Latin only: Chinese falls through to the CJK font), so
// English text and quotes render as designed instead of in the CJK font's
// full-width Latin glyphs.
import '@fontsource/inter/latin-400.css'
import '@fontsource/inter/latin-500.css'
import '@fontsource/inter/latin-600.css'
import '@fontsource/inter/latin-700.css'
import './app.css'
import App from './App.svelte'
import { popoutBinding } from './lib/backend'
import { watchFront } from './lib/front'
import PopoutApp from './PopoutApp.svelte'

// A window started as the mirror's pop-out (popout/popout.go) has its own
// binding and page.
const app = mount(popoutBinding() ? PopoutApp : App, { target: document.getElementById('app')! })
// The main window tells Go whether it is in front (desktop notifications).
if (!popoutBinding()) watchFront()

export default app
