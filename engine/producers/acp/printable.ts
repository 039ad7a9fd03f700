/**
 * Text from an external agent is data, not terminal input: its message, tool titles and option
 * names lose every control character (an ESC sequence could move the cursor, rewrite what was shown
 * or set the window title) except newlines and tabs.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function printable(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROL, '');
}
