# A real SMTP server for tests (Debian's python3-aiosmtpd): stores what it receives in a
# maildir; optionally requires STARTTLS and AUTH, recording every credential check.
import asyncio
import json
import ssl
import sys

from aiosmtpd.handlers import Mailbox
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

cfg = json.loads(sys.argv[1])
options = {}
if cfg.get("cert"):
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cfg["cert"], cfg["key"])
    options.update(tls_context=tls, require_starttls=True)
if cfg.get("user"):
    checks = open(cfg["authLog"], "a", buffering=1)

    def authenticator(server, session, envelope, mechanism, data):
        login = data.login.decode() if isinstance(data, LoginPassword) else ""
        password = data.password.decode() if isinstance(data, LoginPassword) else ""
        ok = login == cfg["user"] and password == cfg["password"]
        checks.write(json.dumps({"mechanism": mechanism, "login": login, "ok": ok, "tls": session.ssl is not None}) + "\n")
        return AuthResult(success=ok, handled=False)  # False: the server answers 535 itself

    options.update(authenticator=authenticator, auth_required=True, auth_require_tls=True,
                   auth_exclude_mechanism=cfg.get("excludeMechanisms") or [])

loop = asyncio.new_event_loop()
handler = Mailbox(cfg["maildir"])
loop.run_until_complete(loop.create_server(lambda: SMTP(handler, hostname="mail.test", **options), "127.0.0.1", cfg["port"]))
loop.run_forever()
