/**
 * Text from an external agent is data, not terminal input: its message, tool titles and option
 * names lose every control sequence (an ESC sequence could move the cursor, rewrite what was shown
 * or set the window title) but newlines and tabs — the one sanitiser, engine/core/render/sanitise.ts.
 */
export { stripControls as printable } from '../../core/render/sanitise.js';
