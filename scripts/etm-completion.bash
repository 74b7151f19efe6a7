# Bash completion for etm (installed as share/bash-completion/completions/etm).
# Completes the subcommand, then the subcommand's options as its --help lists
# them, then file names.
_etm()
{
    local cur=${COMP_WORDS[COMP_CWORD]}
    local subs="run check convert config snapshot decode verify gen swo"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$subs --help --version" -- "$cur"))
        return
    fi
    if [[ $cur == -* ]]; then
        local opts
        opts=$(etm "${COMP_WORDS[1]}" --help 2>/dev/null | grep -o -- '--[a-z0-9-]*' | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _etm etm
