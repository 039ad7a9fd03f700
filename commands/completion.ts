/**
 * `assistant completion bash|zsh|fish`: a completion script for the shell, like `gh completion` and
 * `kubectl completion`. The scripts know no command themselves: they ask `assistant __complete <words>`,
 * which answers from the same cac definitions `--help` reads (commands/group.ts), so a new flag completes
 * without touching this file.
 */
import { UsageError } from '../engine/core/errors.js';

const SCRIPTS: Record<string, string> = {
  bash: `# assistant completion for bash: source <(assistant completion bash), or save it as
# ~/.local/share/bash-completion/completions/assistant
_assistant_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local IFS=$'\\n'
  COMPREPLY=( $(compgen -W "$(assistant __complete "\${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null)" -- "$cur") )
}
complete -o default -F _assistant_complete assistant
`,
  zsh: `#compdef assistant
# assistant completion for zsh: save as _assistant in a folder of $fpath, or source <(assistant completion zsh)
_assistant() {
  local -a candidates
  candidates=("\${(@f)$(assistant __complete "\${(@)words[2,CURRENT-1]}" 2>/dev/null)}")
  compadd -a candidates
}
if [ "$funcstack[1]" = "_assistant" ]; then _assistant "$@"; else compdef _assistant assistant; fi
`,
  fish: `# assistant completion for fish: assistant completion fish > ~/.config/fish/completions/assistant.fish
complete -c assistant -f -a '(assistant __complete (commandline -opc)[2..-1] 2>/dev/null)'
`,
};

export const SHELLS = Object.keys(SCRIPTS);

/** The script for a shell, or a usage error naming the ones there are. */
export function completionScript(shell: string | undefined): string {
  const script = shell ? SCRIPTS[shell] : undefined;
  if (!script) {
    throw new UsageError(shell ? `no completion for the shell "${shell}"` : 'name the shell', { hint: `assistant completion ${SHELLS.join('|')}` });
  }
  return script;
}
