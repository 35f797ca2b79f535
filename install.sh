#!/bin/sh
# KRouter installer (krouter-install-sh). POSIX sh, no root, safe to run again (it upgrades in place).
#
#   curl -fsSL <url>/install.sh | sh          lookup only: asks nothing, installs no timer
#   sh install.sh                             from a checkout, by a person at a terminal: also the timer
#   sh install.sh --ask                       asks: vault, session import, nightly timer, watcher
#   sh install.sh --uninstall [--purge-logs]  removes venv, link, units and cache; never the vault
#
# The timer rule, in order (README "Install" says the same):
#   1. KROUTER_NO_TIMER=1 installs no units at all, whatever else is asked.
#   2. --timer / --no-timer decide explicitly; --ask asks.
#   3. Otherwise the timer is installed only when this file is run from a KRouter checkout AND standard
#      input is a terminal (a person typed the command). Piped, scripted and CI runs get lookup only.
# The timer also needs a vault to learn on: --vault DIR, else $KROUTER_VAULT, else `vault` in config.toml.
# Exit codes, as krouter's own: 0 done, 2 usage error (a bad option), 1 any other error.
set -eu

say() { printf 'krouter-install: %s\n' "$*"; }
warn() { printf 'krouter-install: warning: %s\n' "$*" >&2; }
die() {
	printf 'krouter-install: error: %s\n' "$*" >&2
	exit 1
}
usage_error() {
	printf 'krouter-install: error: %s\n' "$*" >&2
	exit 2
}

usage() {
	cat <<'EOF'
Usage: install.sh [--ask] [--timer|--no-timer] [--watch] [--vault DIR]
       install.sh --uninstall [--purge-logs] [--purge-key]

  --ask          ask which vault to use (or create one), whether to import agent sessions,
                 whether to install the nightly learner timer and the index watcher
  --timer        install the nightly learner timer (needs a vault)
  --no-timer     do not install the timer, even from a checkout
  --watch        install the index watcher service (needs a vault)
  --vault DIR    the vault the timer and watcher use
  --uninstall    stop the watcher, remove the venv, the krouter link, the units and the cache dir
                 (indexes, which hold words of your notes; rebuilt on demand), never the vault or config
  --purge-logs   with --uninstall: also delete the state dir (query log, learner journal)
  --purge-key    with --uninstall: also delete learn.env (the learner's API key)

Environment: KROUTER_SOURCE=PATH (install from a local checkout or wheel), KROUTER_TAG=VERSION (pin a
release; from the package index, or from git when KROUTER_REPO=URL is set), KROUTER_NO_TIMER=1,
KROUTER_PYTHON=/path/to/python3.11+, KROUTER_STATE_DIR, KROUTER_CACHE_DIR, XDG_DATA_HOME,
XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_CACHE_HOME.
EOF
}

ASK=0
UNINSTALL=0
PURGE_LOGS=0
PURGE_KEY=0
WANT_TIMER=""
WANT_WATCH=0
VAULT_ARG=""
while [ $# -gt 0 ]; do
	case $1 in
	--ask) ASK=1 ;;
	--uninstall) UNINSTALL=1 ;;
	--purge-logs) PURGE_LOGS=1 ;;
	--purge-key) PURGE_KEY=1 ;;
	--timer) WANT_TIMER=1 ;;
	--no-timer) WANT_TIMER=0 ;;
	--watch) WANT_WATCH=1 ;;
	--vault)
		[ $# -ge 2 ] || usage_error "--vault needs a folder (see --help)"
		VAULT_ARG=$2
		shift
		;;
	--vault=*) VAULT_ARG=${1#--vault=} ;;
	-h | --help)
		usage
		exit 0
		;;
	*) usage_error "unknown option: $1 (see --help)" ;;
	esac
	shift
done
[ "$PURGE_LOGS" = 0 ] || [ "$UNINSTALL" = 1 ] || usage_error "--purge-logs only goes with --uninstall"
[ "$PURGE_KEY" = 0 ] || [ "$UNINSTALL" = 1 ] || usage_error "--purge-key only goes with --uninstall"

[ -n "${HOME:-}" ] || die "HOME is not set"
DATA_DIR=${XDG_DATA_HOME:-$HOME/.local/share}/krouter
VENV=$DATA_DIR/venv
BIN_DIR=$HOME/.local/bin
LINK=$BIN_DIR/krouter
UNIT_DIR=${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user
AGENT_DIR=$HOME/Library/LaunchAgents
OS=$(uname -s)

# KRouter's state and cache dirs, worked out as krouter/config.py does, but without the venv (uninstall
# may run after the venv is gone): KROUTER_STATE_DIR / KROUTER_CACHE_DIR, else platformdirs, which takes
# $XDG_STATE_HOME / $XDG_CACHE_HOME when they are absolute paths (on macOS too), else the platform default.
xdg_or() { # xdg_or VALUE DEFAULT: VALUE when it is an absolute path, as platformdirs decides
	case $1 in /*) printf '%s' "$1" ;; *) printf '%s' "$2" ;; esac
}
if [ "$OS" = Darwin ]; then
	state_base=$(xdg_or "${XDG_STATE_HOME:-}" "$HOME/Library/Application Support")
	cache_base=$(xdg_or "${XDG_CACHE_HOME:-}" "$HOME/Library/Caches")
else
	state_base=$(xdg_or "${XDG_STATE_HOME:-}" "$HOME/.local/state")
	cache_base=$(xdg_or "${XDG_CACHE_HOME:-}" "$HOME/.cache")
fi
STATE_DIR=${KROUTER_STATE_DIR:-$state_base/krouter}
CACHE_DIR=${KROUTER_CACHE_DIR:-$cache_base/krouter}

# A checkout is the folder this file sits in, when that folder holds KRouter's pyproject.toml. Piped
# into sh, $0 is the shell's name, so a piped run never counts as a checkout, whatever the cwd is.
CHECKOUT=""
case $0 in
*install.sh)
	here=$(dirname "$0")
	if [ -f "$here/pyproject.toml" ] && grep -q '^name = "krouter"' "$here/pyproject.toml"; then
		CHECKOUT=$(cd "$here" && pwd -P)
	fi
	;;
esac

# The user manager is reachable only inside a login session with systemd (not in most containers).
have_user_systemd() {
	command -v systemctl >/dev/null 2>&1 && systemctl --user show-environment >/dev/null 2>&1
}

kpy() { "$VENV/bin/python" -m krouter.ops.units "$@"; }

# ---------------------------------------------------------------- uninstall
remove_dir() { # remove_dir DIR WHAT: delete one of KRouter's dirs, but only a folder named krouter
	dir=${1%/}
	[ -d "$dir" ] || return 0
	case $dir in
	*/krouter) rm -rf "$dir" && say "removed $dir ($2)" ;;
	# An override can name any folder (even $HOME): too risky to delete wholesale.
	*) warn "left $dir ($2): only a folder named krouter is removed; delete it by hand if you wish" ;;
	esac
}

if [ "$UNINSTALL" = 1 ]; then
	if [ "$OS" = Darwin ]; then
		for label in com.krouter.learn com.krouter.watch; do
			if [ -f "$AGENT_DIR/$label.plist" ]; then
				launchctl bootout "gui/$(id -u)" "$AGENT_DIR/$label.plist" 2>/dev/null || true
				rm -f "$AGENT_DIR/$label.plist"
				say "removed $AGENT_DIR/$label.plist"
			fi
		done
	fi
	units="krouter-learn.timer krouter-learn.service krouter-watch.service"
	if have_user_systemd; then
		# shellcheck disable=SC2086 # a fixed list of unit names
		systemctl --user disable --now $units >/dev/null 2>&1 || true
	fi
	for unit in $units; do
		if [ -f "$UNIT_DIR/$unit" ]; then
			rm -f "$UNIT_DIR/$unit"
			say "removed $UNIT_DIR/$unit"
		fi
	done
	if have_user_systemd; then systemctl --user daemon-reload || true; fi
	# A watcher started by hand (the advice where systemd is not reachable) runs this venv's python:
	# left running, it would serve lookups from a removed install until the next reboot.
	# The venv's path is matched literally: a ( or [ in it must not turn into regex syntax.
	# shellcheck disable=SC2016 # the $ is a character to escape, not an expansion
	venv_re=$(printf '%s' "$VENV" | sed 's/[][\.*^$()+?{}|]/\\&/g')
	if command -v pkill >/dev/null 2>&1 &&
		pkill -f "^$venv_re/bin/python[0-9.]* [^ ]*krouter watch( |\$)" 2>/dev/null; then
		say "stopped the krouter watch running from $VENV"
	fi
	# What `krouter setup --write` put into projects starts krouter from this venv: taken out while the
	# venv (and the link a config may name) can still do it, each file edited as `krouter setup AGENT
	# --uninstall` edits it (every byte outside KRouter's part kept); a file it cannot edit safely, and a
	# project another install's krouter starts, are named and left.
	if [ -x "$VENV/bin/python" ] && [ -s "$STATE_DIR/agent_configs.txt" ]; then
		"$VENV/bin/python" -m krouter.agents.removal || warn "some agent configs were left; see above"
	fi
	# Only our own link: a krouter installed some other way is not ours to remove.
	if [ -L "$LINK" ] && [ "$(readlink "$LINK")" = "$VENV/bin/krouter" ]; then
		rm -f "$LINK"
		say "removed $LINK"
	fi
	if [ -d "$VENV" ]; then
		rm -rf "$VENV"
		say "removed $VENV"
	fi
	rmdir "$DATA_DIR" 2>/dev/null || true
	# The indexes hold the words of private notes; they are rebuilt on demand, so they never need keeping.
	remove_dir "$CACHE_DIR" "indexes and jieba cache, rebuildable"
	# Files `krouter setup --write` wrote (.mcp.json, CLAUDE.md, ...) that the removal above left: listed
	# before the state dir that records them may go.
	if [ -s "$STATE_DIR/agent_configs.txt" ]; then
		say "agent configs KRouter wrote that were left (another install's, or not safe to edit; see above):"
		while IFS= read -r written; do
			if [ -e "$written" ]; then say "  $written"; fi
		done <"$STATE_DIR/agent_configs.txt"
	fi
	if [ "$OS" = Darwin ]; then
		config_base=$(xdg_or "${XDG_CONFIG_HOME:-}" "$HOME/Library/Application Support")
	else
		config_base=$(xdg_or "${XDG_CONFIG_HOME:-}" "$HOME/.config")
	fi
	key_file=${KROUTER_CONFIG_DIR:-$config_base/krouter}/learn.env
	if [ -f "$key_file" ] && [ "$PURGE_KEY" = 1 ]; then
		rm -f "$key_file" && say "removed $key_file (the learner's API key)"
	elif [ -f "$key_file" ]; then
		say "kept $key_file: it holds the learner's API key; --purge-key deletes it"
	fi
	if [ "$PURGE_LOGS" = 1 ]; then
		remove_dir "$STATE_DIR" "query log, learner journal"
	elif [ -d "$STATE_DIR" ]; then
		say "kept $STATE_DIR (query log, learner journal); --purge-logs deletes it"
	fi
	say "kept your vault and config.toml"
	exit 0
fi

# ---------------------------------------------------------------- python
py_ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; }
py_version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo "?"; }

PYTHON=""
if [ -n "${KROUTER_PYTHON:-}" ]; then
	command -v "$KROUTER_PYTHON" >/dev/null 2>&1 || die "KROUTER_PYTHON=$KROUTER_PYTHON: no such program"
	py_ok "$KROUTER_PYTHON" || die "KROUTER_PYTHON=$KROUTER_PYTHON is Python $(py_version "$KROUTER_PYTHON"); KRouter needs Python 3.11 or newer"
	PYTHON=$KROUTER_PYTHON
else
	seen=""
	for candidate in python3 python3.13 python3.12 python3.11; do
		command -v "$candidate" >/dev/null 2>&1 || continue
		if py_ok "$candidate"; then
			PYTHON=$candidate
			break
		fi
		seen="$seen $candidate=$(py_version "$candidate")"
	done
	if [ -z "$PYTHON" ]; then
		if [ -n "$seen" ]; then found="found:$seen"; else found="found no python3 on PATH"; fi
		die "KRouter needs Python 3.11 or newer ($found). Install one (Debian/Ubuntu: apt install python3.11 python3.11-venv; macOS: brew install python@3.12) or set KROUTER_PYTHON=/path/to/python3.11"
	fi
fi
if ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
	v=$(py_version "$PYTHON")
	die "$PYTHON (Python $v) cannot create virtual environments: its venv/ensurepip modules are missing. On Debian/Ubuntu: apt install python$v-venv"
fi

# ---------------------------------------------------------------- what to install
if [ -n "${KROUTER_SOURCE:-}" ]; then
	[ -e "$KROUTER_SOURCE" ] || die "KROUTER_SOURCE=$KROUTER_SOURCE does not exist"
	if [ -d "$KROUTER_SOURCE" ]; then
		src=$(cd "$KROUTER_SOURCE" && pwd -P)
		spec="${src}[learn]"
	else
		src=$(cd "$(dirname "$KROUTER_SOURCE")" && pwd -P)/$(basename "$KROUTER_SOURCE")
		spec="krouter[learn] @ file://$src"
	fi
	from="$src"
elif [ -n "${KROUTER_TAG:-}" ]; then
	if [ -n "${KROUTER_REPO:-}" ]; then
		spec="krouter[learn] @ git+$KROUTER_REPO@$KROUTER_TAG"
		from="$KROUTER_REPO at $KROUTER_TAG"
	else
		spec="krouter[learn]==${KROUTER_TAG#v}"
		from="the package index, version ${KROUTER_TAG#v}"
	fi
elif [ -n "$CHECKOUT" ]; then
	spec="${CHECKOUT}[learn]"
	from="$CHECKOUT"
elif [ -n "${KROUTER_REPO:-}" ]; then
	spec="krouter[learn] @ git+$KROUTER_REPO"
	from="$KROUTER_REPO"
else
	spec="krouter[learn]"
	from="the package index"
fi

# ---------------------------------------------------------------- venv + package
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
	say "upgrading KRouter in $VENV from $from"
else
	say "installing KRouter into $VENV from $from (Python $(py_version "$PYTHON"))"
	rm -rf "$VENV"
	mkdir -p "$DATA_DIR"
	"$PYTHON" -m venv "$VENV" || die "could not create a virtual environment in $VENV with $PYTHON"
fi
# --upgrade rebuilds a local source even when its version number has not changed.
say "pip is installing KRouter and its dependencies (a minute or so on a first install; quiet until done)"
"$VENV/bin/python" -m pip install --quiet --upgrade "$spec" ||
	die "pip could not install $spec (the venv in $VENV is kept; run this again once fixed)"
"$VENV/bin/krouter" --version >/dev/null || die "the installed krouter does not run ($VENV/bin/krouter)"

mkdir -p "$BIN_DIR"
if [ -L "$LINK" ] || [ ! -e "$LINK" ]; then
	current=$(readlink "$LINK" 2>/dev/null || true)
	if [ -z "$current" ] || [ "$current" = "$VENV/bin/krouter" ] || [ ! -e "$LINK" ]; then
		ln -sfn "$VENV/bin/krouter" "$LINK"
	else
		warn "$LINK already points to $current; left it alone (run $VENV/bin/krouter, or remove that link and run this again)"
	fi
else
	warn "$LINK exists and is not a link; left it alone (run $VENV/bin/krouter directly)"
fi
say "installed $("$VENV/bin/krouter" --version) -> $LINK"
case ":${PATH:-}:" in
*":$BIN_DIR:"*) ;;
*) say "$BIN_DIR is not on your PATH; add this line to your shell profile: export PATH=\"$BIN_DIR:\$PATH\"" ;;
esac

# ---------------------------------------------------------------- questions (--ask)
prompt() { # prompt QUESTION DEFAULT -> $REPLY (from the terminal: stdin may be this very script)
	printf '%s ' "$1" >/dev/tty
	REPLY=""
	IFS= read -r REPLY </dev/tty || REPLY=""
	[ -n "$REPLY" ] || REPLY=$2
}
yes_no() { # yes_no QUESTION y|n
	if [ "$2" = y ]; then hint="[Y/n]"; else hint="[y/N]"; fi
	prompt "$1 $hint" "$2"
	case $REPLY in [Yy]*) return 0 ;; *) return 1 ;; esac
}
abs_dir() { (cd "$1" 2>/dev/null && pwd -P); }

CONFIG_DIR=$(kpy path config)
CONFIGURED_VAULT=$(kpy path vault)
VAULT=""

remember_vault() { # record the vault in config.toml through `krouter config set`, which keeps the rest
	# Read again: `krouter init` (creating the vault just now) records it itself, and a second
	# `vault =` line would make config.toml invalid TOML for every later command.
	CONFIGURED_VAULT=$(kpy path vault)
	if [ "$CONFIGURED_VAULT" = "$1" ]; then return 0; fi
	if [ -n "$CONFIGURED_VAULT" ]; then
		warn "$CONFIG_DIR/config.toml names vault $CONFIGURED_VAULT; left it alone (krouter ask uses that one, the units use $1)"
		return 0
	fi
	# `config set` keeps the file's comments, line endings and other settings, edits a config.toml that is
	# a link where it points, and writes the path as TOML wants it (quotes, backslashes).
	"$VENV/bin/krouter" config set vault "$1" || warn "could not record the vault in $CONFIG_DIR/config.toml"
}

if [ "$ASK" = 1 ]; then
	(: </dev/tty) 2>/dev/null || die "--ask needs a terminal to ask on"
	default=${VAULT_ARG:-${KROUTER_VAULT:-${CONFIGURED_VAULT:-$HOME/notes}}}
	prompt "Vault folder (your Markdown notes) [$default]:" "$default"
	# shellcheck disable=SC2088 # matching a literal tilde the person typed
	case $REPLY in
	"~") choice=$HOME ;;
	"~/"*) choice=$HOME/${REPLY#"~/"} ;;
	*) choice=$REPLY ;;
	esac
	if [ -d "$choice" ] && [ -n "$(ls -A "$choice" 2>/dev/null)" ]; then
		VAULT=$(abs_dir "$choice")
	elif yes_no "$choice is empty or missing. Create a vault there from the template?" y; then
		"$VENV/bin/krouter" init "$choice"
		VAULT=$(abs_dir "$choice")
	fi
	if [ -n "$VAULT" ]; then
		remember_vault "$VAULT"
		sessions=$HOME/.claude/projects
		if [ -d "$sessions" ]; then
			if ! "$VENV/bin/krouter" import --help >/dev/null 2>&1; then
				say "this krouter has no import command yet; skipping session import"
			elif yes_no "Import your Claude Code sessions ($sessions) into the vault? Secrets are redacted first." n; then
				"$VENV/bin/krouter" import "$sessions" --vault "$VAULT" || warn "session import failed; the rest goes on"
			fi
		fi
		if [ -z "$WANT_TIMER" ] && [ "${KROUTER_NO_TIMER:-}" != 1 ]; then
			if yes_no "Install the nightly learner? It runs sandboxed and sends weak questions plus page excerpts to the model (SECURITY.md)." n; then
				WANT_TIMER=1
			else
				WANT_TIMER=0
			fi
		fi
		if [ "$WANT_WATCH" = 0 ] && [ "${KROUTER_NO_TIMER:-}" != 1 ] && yes_no "Keep the index fresh in the background (krouter watch)?" n; then
			WANT_WATCH=1
		fi
	else
		WANT_TIMER=0
	fi
fi

# ---------------------------------------------------------------- the timer rule
TIMER=0
EXPLICIT=0
AUTO_TIMER=0
if [ "${KROUTER_NO_TIMER:-}" = 1 ]; then
	if [ "$WANT_TIMER" = 1 ] || [ "$WANT_WATCH" = 1 ]; then say "KROUTER_NO_TIMER=1: installing no units"; fi
	WANT_WATCH=0
elif [ -n "$WANT_TIMER" ]; then
	TIMER=$WANT_TIMER
	EXPLICIT=1
elif [ -n "$CHECKOUT" ] && [ -t 0 ]; then
	TIMER=1
	AUTO_TIMER=1 # said below, once there is a vault to learn on
fi
[ "$WANT_WATCH" = 0 ] || EXPLICIT=1

hint() { # the last line of a lookup-only run: a lookup that works with what is configured
	v=${VAULT:-${VAULT_ARG:-${KROUTER_VAULT:-$CONFIGURED_VAULT}}}
	if [ -n "$v" ]; then
		say "try:  krouter ask \"<a question your notes answer>\"   (vault $v)"
	else
		say "try:  krouter ask \"which database do we use\" --vault demo   (the demo vault's fictional pages); start your own with  krouter init ~/notes"
	fi
}

# Units an earlier run installed: a lookup-only run re-renders them too (below), so they never keep
# naming an old vault or venv.
EXISTING=0
if [ "$OS" = Darwin ]; then
	for f in "$AGENT_DIR/com.krouter.learn.plist" "$AGENT_DIR/com.krouter.watch.plist"; do [ ! -f "$f" ] || EXISTING=1; done
else
	for f in "$UNIT_DIR/krouter-learn.timer" "$UNIT_DIR/krouter-watch.service"; do [ ! -f "$f" ] || EXISTING=1; done
fi
if [ "${KROUTER_NO_TIMER:-}" = 1 ]; then EXISTING=0; fi

if [ "$TIMER" = 0 ] && [ "$WANT_WATCH" = 0 ] && [ "$EXISTING" = 0 ]; then
	say "lookup only (no nightly learner or watcher)"
	hint
	exit 0
fi

if [ -z "$VAULT" ]; then
	v=${VAULT_ARG:-${KROUTER_VAULT:-$CONFIGURED_VAULT}}
	if [ -n "$v" ]; then
		VAULT=$(abs_dir "$v") || VAULT=""
		[ -n "$VAULT" ] || {
			if [ "$EXPLICIT" = 1 ]; then die "vault $v is not a folder; no units installed"; fi
			warn "vault $v is not a folder; no units installed or updated"
			hint
			exit 0
		}
	else
		msg="no vault to learn on (use --vault DIR, KROUTER_VAULT, or --ask)"
		if [ "$EXPLICIT" = 1 ]; then die "$msg; no units installed"; fi
		if [ "$AUTO_TIMER" = 1 ]; then
			say "run from a checkout at a terminal, but $msg: lookup only"
		else
			warn "$msg; the units installed earlier were left as they are"
		fi
		hint
		exit 0
	fi
fi
if [ "$AUTO_TIMER" = 1 ]; then
	say "run from a checkout at a terminal: installing the nightly learner too (KROUTER_NO_TIMER=1 or --no-timer to skip)"
fi

jobs=""
if [ "$TIMER" = 1 ]; then jobs="--learn"; fi
if [ "$WANT_WATCH" = 1 ]; then jobs="$jobs --watch"; fi
if [ "$OS" = Darwin ]; then
	# Agents an earlier run installed are re-rendered (and reloaded) too.
	if [ -f "$AGENT_DIR/com.krouter.learn.plist" ] && [ "$TIMER" = 0 ]; then jobs="$jobs --learn"; fi
	if [ -f "$AGENT_DIR/com.krouter.watch.plist" ] && [ "$WANT_WATCH" = 0 ]; then jobs="$jobs --watch"; fi
fi
for dir in "$(kpy path state)" "$(kpy path cache)"; do
	# The sandbox mounts these, so they must exist; 0700 because the query log is private.
	mkdir -p "$dir" && chmod 700 "$dir"
done

if [ "$OS" = Darwin ]; then
	mkdir -p "$AGENT_DIR"
	# shellcheck disable=SC2086 # $jobs is a list of flags we built
	kpy render launchd "$AGENT_DIR" --vault "$VAULT" $jobs >/dev/null || die "could not write the launchd agents"
	for label in com.krouter.learn com.krouter.watch; do
		plist=$AGENT_DIR/$label.plist
		case "$label:$jobs" in com.krouter.learn:*--learn* | com.krouter.watch:*--watch*) ;; *) continue ;; esac
		launchctl bootout "gui/$(id -u)" "$plist" 2>/dev/null || true
		launchctl bootstrap "gui/$(id -u)" "$plist" || warn "launchctl could not load $plist"
		say "loaded $plist"
	done
	say "put ANTHROPIC_API_KEY=... in $CONFIG_DIR/learn.env (chmod 600) for the learner's model"
	hint
	exit 0
fi

# Units a previous run installed are re-rendered too, so every unit names the same vault and venv.
if [ -f "$UNIT_DIR/krouter-learn.timer" ] && [ "$TIMER" = 0 ]; then jobs="$jobs --learn"; fi
if [ -f "$UNIT_DIR/krouter-watch.service" ] && [ "$WANT_WATCH" = 0 ]; then jobs="$jobs --watch"; fi
# shellcheck disable=SC2086 # $jobs is a list of flags we built
kpy render systemd "$UNIT_DIR" --vault "$VAULT" $jobs >/dev/null || die "could not write the systemd units"
say "wrote units for vault $VAULT to $UNIT_DIR"
if have_user_systemd; then
	systemctl --user daemon-reload
	if [ "$TIMER" = 1 ]; then
		systemctl --user enable --now krouter-learn.timer && say "enabled krouter-learn.timer (nightly)"
	fi
	if [ "$WANT_WATCH" = 1 ]; then
		systemctl --user enable krouter-watch.service && systemctl --user restart krouter-watch.service &&
			say "started krouter-watch.service"
	else
		systemctl --user try-restart krouter-watch.service || true # a running watcher picks up the upgrade
	fi
	say "timers run only while you are logged in unless lingering is on: loginctl enable-linger \"\$USER\""
else
	say "systemd's user manager is not reachable here (a container, or no login session): the units are written but not enabled."
	# Name only what was written: a --watch install without the timer has no timer to enable.
	if [ -f "$UNIT_DIR/krouter-learn.timer" ]; then
		say "  later, in a login session: systemctl --user daemon-reload && systemctl --user enable --now krouter-learn.timer"
		say "  or run the learner from cron instead (it reads learn.env itself):  30 3 * * * '$VENV/bin/krouter' learn --vault '$VAULT'"
	fi
	if [ -f "$UNIT_DIR/krouter-watch.service" ]; then
		say "  the watcher, later in a login session: systemctl --user daemon-reload && systemctl --user enable --now krouter-watch.service"
		say "  or start it yourself and leave it running:  '$VENV/bin/krouter' watch --vault '$VAULT' &"
	fi
fi
if [ "$TIMER" = 1 ]; then
	say "the learner's model: put ANTHROPIC_API_KEY=... in $CONFIG_DIR/learn.env (chmod 600)"
fi
hint
