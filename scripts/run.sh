#!/usr/bin/env bash
# make run: on a fresh Debian machine (as root), installs what is missing, builds, starts energyd
# in the background with its embedded ClickHouse under ./var, creates a demo tenant, an admin
# token, a tariff, a weather station and a site, loads demo readings when `energyctl demo` exists,
# and prints the token with curl lines that work when pasted.
#
#   bash scripts/run.sh         start (stopping a previous energyd started here first)
#   bash scripts/run.sh stop    stop it
#
# Settings (environment): ENERGY_LISTEN (default :8080), ENERGY_ADVICE_LISTEN (default :8081,
# the recommendation API; empty disables it) and the other ENERGY_* variables of energyd; DEMO=0 skips the demo readings; DEMO_TENANT (default demo).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
var=$root/var
pidfile=$var/energyd.pid
logfile=$var/energyd.log
tenant=${DEMO_TENANT:-demo}
listen=${ENERGY_LISTEN:-:8080}
port=${listen##*:}
host=${listen%:*}
case "$host" in "" | "0.0.0.0" | "[::]" | "::") host=127.0.0.1 ;; esac
api="http://$host:$port"
# Unset, energyd puts the recommendation API on port 8081 of the main listener's host.
advice_listen=${ENERGY_ADVICE_LISTEN-${listen%:*}:8081}
advice_port=${advice_listen##*:}
advice_host=${advice_listen%:*}
case "$advice_host" in "" | "0.0.0.0" | "[::]" | "::") advice_host=127.0.0.1 ;; esac
advice_api="http://$advice_host:$advice_port"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'make run: %s\n' "$*" >&2; exit 1; }

stop_previous() {
  [ -f "$pidfile" ] || return 0
  local pid
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep energyd >/dev/null; then
    say "stopping the previous energyd (pid $pid)"
    kill -TERM "$pid"
    for _ in $(seq 1 300); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "energyd $pid did not stop within 30 s; killing it" >&2
      kill -KILL "$pid" || true
    fi
  fi
  rm -f "$pidfile"
}

if [ "${1:-}" = stop ]; then
  stop_previous
  exit 0
fi

# 1. What a fresh Debian machine lacks: ClickHouse (Debian's 18.16 package), time zones, curl.
missing=()
command -v clickhouse-server >/dev/null 2>&1 || [ -x /usr/sbin/clickhouse-server ] || command -v clickhouse >/dev/null 2>&1 || missing+=(clickhouse-server)
command -v clickhouse-client >/dev/null 2>&1 || command -v clickhouse >/dev/null 2>&1 || missing+=(clickhouse-client)
[ -e /usr/share/zoneinfo/Europe/Paris ] || missing+=(tzdata)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "missing ${missing[*]}: run as root, or install them (apt-get install ${missing[*]})"
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v go >/dev/null 2>&1 || die "Go is required to build (https://go.dev/doc/install); it is not in PATH"

# 2. Build.
say "building bin/energyd and bin/energyctl"
go build -o bin/ ./cmd/...

# 3. Start energyd with its embedded ClickHouse under ./var.
stop_previous
mkdir -p "$var"
if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
  die "port $port is taken by another program: set ENERGY_LISTEN=:PORT"
fi
if [ -n "$advice_listen" ] && (exec 3<>"/dev/tcp/$advice_host/$advice_port") 2>/dev/null; then
  die "port $advice_port is taken by another program: set ENERGY_ADVICE_LISTEN=:PORT (empty disables the recommendation API)"
fi
say "starting energyd on $listen (data under var/, log in var/energyd.log)"
# Its own session: a Ctrl-C in this terminal does not stop it; make stop does.
ENERGY_DATA_DIR=$var setsid bin/energyd >"$logfile" 2>&1 </dev/null &
echo $! >"$pidfile"
pid=$(cat "$pidfile")
for i in $(seq 1 1200); do
  if curl -fsS -o /dev/null "$api/readyz" 2>/dev/null; then
    break
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    tail -n 20 "$logfile" >&2
    die "energyd exited during start (see var/energyd.log)"
  fi
  [ "$i" -lt 1200 ] || die "energyd not ready after 120 s (see var/energyd.log)"
  sleep 0.1
done
say "energyd is ready (pid $pid)"

ctl() { bin/energyctl "$1" "$2" --data-dir "$var" "${@:3}"; }

# 4. Demo tenant, admin token (reused while it works), tariff, weather station and site.
tokenfile=$var/demo-token
token=""
if [ -s "$tokenfile" ]; then
  token=$(cat "$tokenfile")
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$api/v1/weather-stations/07149")
  [ "$code" != 401 ] || token=""
fi
if [ -z "$token" ]; then
  token=$(ctl token create --tenant "$tenant" --scopes admin --description "make run demo admin")
  (umask 077 && echo "$token" >"$tokenfile")
fi

cat >"$var/demo-tariff.json" <<'JSON'
{
  "option": "HPHC",
  "dialHeadings": {"1": "HC", "2": "HP"},
  "headingGroups": {"HC": "HC", "HP": "HP"},
  "timeOfUse": [{"from": "22:00", "to": "06:00", "heading": "HC"}],
  "defaultHeading": "HP",
  "prices": [
    {"validFrom": "2024-02-01", "byHeading": {"HC": 0.2068, "HP": 0.2700}},
    {"validFrom": "2025-02-01", "byHeading": {"HC": 0.1696, "HP": 0.2146}},
    {"validFrom": "2025-08-01", "byHeading": {"HC": 0.1635, "HP": 0.2081}}
  ],
  "standingCharges": [
    {"validFrom": "2024-02-01", "yearly": {"subscription": 168.72, "cta": 23.40}},
    {"validFrom": "2025-02-01", "yearly": {"subscription": 196.08, "cta": 25.05}}
  ],
  "carbonCoefficient": 0.052
}
JSON
ctl tariff put HPHC-9KVA --tenant "$tenant" --file "$var/demo-tariff.json" >/dev/null
ctl station put 07149 --tenant "$tenant" --name Paris-Orly --lat 48.72 --lon 2.38 >/dev/null
ctl site put demo-home --tenant "$tenant" --customer-id C-HOME-1 --person-id P-HOME-1 \
  --timezone Europe/Paris --station 07149 --tariff HPHC-9KVA --heating ELEC >/dev/null
say "tenant $tenant: tariff HPHC-9KVA, weather station 07149 (Paris-Orly), site demo-home"

# 5. Demo readings of last year, when this build has `energyctl demo` (once per data directory).
site=demo-home
gas_site=demo-home
year=$(date +%Y)
# (The help is read whole before grep looks at it: `grep -q` stopping early under pipefail made
# energyctl's next write fail with SIGPIPE, and the demo was skipped about one run in ten.)
ctl_help=$(bin/energyctl help 2>&1 || true)
if grep -qE '^ +demo +' <<<"$ctl_help"; then
  site=demo-site-1
  gas_site=demo-site-2 # gas-heated, with a gas tariff
  if [ "${DEMO:-1}" = 0 ]; then
    say "DEMO=0: demo readings not loaded"
  elif [ -f "$var/demo-loaded" ]; then
    say "demo readings already loaded (rm var/demo-loaded to load them again)"
  else
    say "loading demo readings (energyctl demo)"
    bin/energyctl demo --tenant "$tenant" --api "$api" --token "$token" --data-dir "$var" --year $((year - 1)) --years 2 >"$var/demo.log"
    touch "$var/demo-loaded"
  fi
fi

# The demo target (energyctl demo creates it on the first demo site, with a contact).
target=""
if [ "$site" = demo-site-1 ]; then
  target=$(curl -s -H "Authorization: Bearer $token" "$api/v2/sites/$site/targets" | grep -o '"targetId": *"[^"]*"' | head -n 1 | sed -E 's/.*"([^"]*)"$/\1/' || true)
fi

# 6. What to paste.
url_decode() { printf '%b' "$(sed -E 's/%([0-9A-Fa-f]{2})/\\x\1/g' <<<"$1")"; }

# clickhouse_client_line is the clickhouse-client command that reaches energyd's store: the
# DSN's first host, its database and credentials, or the embedded server's endpoint.
clickhouse_client_line() {
  local dsn=${ENERGY_CLICKHOUSE_DSN:-} env_credentials=1
  if [ -z "$dsn" ]; then # the embedded server records its address; energyd's database is energy
    dsn=$(cat "$var/clickhouse/endpoint")
    dsn=${dsn%/*}/energy
    env_credentials=0 # energyd applies ENERGY_CLICKHOUSE_USER/PASSWORD to a DSN only
  fi
  # clickhouse://[user[:password]@]host:port[,host:port...]/database[?settings]
  local rest=${dsn#*://} user="" password="" hostport db="default" chhost chport
  rest=${rest%%\?*}
  hostport=${rest%%/*}
  [ "$rest" = "$hostport" ] || db=${rest#*/}
  [ -n "$db" ] || db=default
  if [[ $hostport == *@* ]]; then
    local userinfo=${hostport%@*}
    hostport=${hostport##*@}
    user=${userinfo%%:*}
    [ "$userinfo" = "$user" ] || password=$(url_decode "${userinfo#*:}")
    user=$(url_decode "$user")
  fi
  hostport=${hostport%%,*}
  chport=9000
  chhost=$hostport
  if [[ $hostport =~ ^(.*):([0-9]+)$ ]]; then
    chhost=${BASH_REMATCH[1]}
    chport=${BASH_REMATCH[2]}
  fi
  chhost=${chhost#[}
  chhost=${chhost%]}
  local line="clickhouse-client --host $chhost --port $chport --database $db"
  if [ "$env_credentials" = 0 ]; then
    echo "$line"
    return
  fi
  [ -z "${ENERGY_CLICKHOUSE_USER:-}${ENERGY_CLICKHOUSE_USER_FILE:-}" ] || user=""
  if [ -n "${ENERGY_CLICKHOUSE_USER_FILE:-}" ]; then
    line+=" --user \"\$(cat $(printf %q "$ENERGY_CLICKHOUSE_USER_FILE"))\""
  elif [ -n "${ENERGY_CLICKHOUSE_USER:-}" ]; then
    line+=" --user $(printf %q "$ENERGY_CLICKHOUSE_USER")"
  elif [ -n "$user" ]; then
    line+=" --user $(printf %q "$user")"
  fi
  # As energyd reads them: the _FILE variants, then the variables, then the DSN's own.
  if [ -n "${ENERGY_CLICKHOUSE_PASSWORD_FILE:-}" ]; then
    line+=" --password \"\$(cat $(printf %q "$ENERGY_CLICKHOUSE_PASSWORD_FILE"))\""
  elif [ -n "${ENERGY_CLICKHOUSE_PASSWORD:-}" ]; then
    line+=" --password $(printf %q "$ENERGY_CLICKHOUSE_PASSWORD")"
  elif [ -n "$password" ]; then
    line+=" --password $(printf %q "$password")"
  fi
  echo "$line"
}
cat <<EOF

energyd is running (pid $pid, log var/energyd.log; stop it with: make stop)

Admin token of tenant $tenant (also in var/demo-token):
$token

Try (each line works when pasted):
curl -s -H 'Authorization: Bearer $token' $api/v2/sites/demo-home
curl -s -H 'Authorization: Bearer $token' $api/v2/tariffs/HPHC-9KVA
curl -s -H 'Authorization: Bearer $token' '$api/v2/sites/$site/fluids/elec/consumptions?startTs=$((year - 1))-01-01T00:00:00&endTs=$year-01-01T00:00:00&stepUnit=MONTHS'
curl -s -H 'Authorization: Bearer $token' '$api/v2/sites/$gas_site/fluids/gas/consumptions?startTs=$((year - 1))-01-01T00:00:00&endTs=$year-01-01T00:00:00&stepUnit=MONTHS&options=withCarbonFootprint'
curl -s -H 'Authorization: Bearer $token' '$api/v1/sites/$site/yearly-elec-energies-comparisons?years=$((year - 1))'
curl -s -H 'Authorization: Bearer $token' $api/v1/sites/$gas_site/budget/matrix
curl -s $api/openapi.yaml | head -n 40
curl -s $api/metrics | grep '^energy_http_requests_total'
API documentation: $api/docs
ClickHouse directly: $(clickhouse_client_line)
EOF
if [ -n "$target" ]; then
  cat <<EOF

Demo target of $site (THRESHOLD_OVERRUN, EMAIL and SMS to the site's contact), then its notifications
(FAILED saying why until energyd has ENERGY_SMTP_URL and ENERGY_SMS_GATEWAY_URL):
curl -s -H 'Authorization: Bearer $token' $api/v2/sites/$site/targets/$target; echo; curl -s -H 'Authorization: Bearer $token' $api/v2/sites/$site/targets/$target/notifications
EOF
fi
if [ "$site" = demo-site-1 ]; then
  cat <<EOF

Am I on the right contract? Daily max powers of $site by month (overruns of its 9 kVA), then its
HPHC contract against BASE 6 and 9 kVA and TEMPO 9 kVA on last year's real data, cheapest first:
curl -s -H 'Authorization: Bearer $token' '$api/v2/sites/$site/fluids/elec/max-powers?startTs=$((year - 1))-01-01T00:00:00&endTs=$year-01-01T00:00:00&stepUnit=MONTHS'
curl -s -H 'Authorization: Bearer $token' '$api/v2/sites/$site/fluids/elec/tariff-simulations?startTs=$((year - 1))-01-01T00:00:00&endTs=$year-01-01T00:00:00&tariffIds=demo-base-6kva,demo-base-9kva,demo-tempo-9kva'
The same as a table: bin/energyctl simulate $site --tenant $tenant --data-dir var --tariffs demo-base-6kva,demo-base-9kva,demo-tempo-9kva --from $((year - 1))-01-01 --to $year-01-01
EOF
fi
if [ -n "$advice_listen" ]; then
  cat <<EOF

Recommendation API on $advice_api (documentation: $advice_api/docs): submit an advice job, then read it:
job=\$(curl -s -H 'Authorization: Bearer $token' -H 'Content-Type: application/json' -d '[{"input": {"HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION": 12000, "HOUSING_HEATING_SETPOINT": 21, "HOUSING_HAS_PROGRAMMABLE_THERMOSTAT": false, "HOUSING_TYPE": "HOUSE", "HOUSING_ROOF_INSULATED": false, "HOUSING_SURFACE": 100}}]' $advice_api/v1/jobs/advices | sed -E 's/.*"jobId":"([^"]+)".*/\\1/'); sleep 1; curl -s -H 'Authorization: Bearer $token' $advice_api/v1/jobs/advices/\$job
EOF
fi
