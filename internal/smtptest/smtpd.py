"""A private SMTP server for loggate's tests (Debian's python3-aiosmtpd).

Every message received is written as one JSON file (mail_from, rcpt_tos,
content, authenticated login) into the given directory. The banner names
the process id, so that the test knows it talks to its own server.
"""
import argparse
import json
import os
import signal
import ssl
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--dir", required=True)
parser.add_argument("--mode", choices=["plain", "starttls", "smtps"], default="plain")
parser.add_argument("--cert")
parser.add_argument("--key")
parser.add_argument("--auth", help="user:password the server requires")
args = parser.parse_args()

count = 0
lock = threading.Lock()


class Handler:
    async def handle_DATA(self, server, session, envelope):
        global count
        with lock:
            count += 1
            n = count
        login = session.auth_data.login.decode() if session.auth_data and hasattr(session.auth_data, "login") else None
        doc = {"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos,
               "content": envelope.content.decode("utf-8", "replace"), "login": login,
               "tls": session.ssl is not None or args.mode == "smtps"}
        tmp = os.path.join(args.dir, ".%06d.tmp" % n)
        with open(tmp, "w") as f:
            json.dump(doc, f)
        os.rename(tmp, os.path.join(args.dir, "%06d.json" % n))
        return "250 OK"


def authenticate(server, session, envelope, mechanism, auth_data):
    user, _, password = args.auth.partition(":")
    ok = auth_data.login.decode() == user and auth_data.password.decode() == password
    return AuthResult(success=ok, auth_data=auth_data)


kwargs = {}
context = None
if args.cert:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.cert, args.key)
if args.mode == "starttls":
    kwargs["tls_context"] = context
    kwargs["require_starttls"] = True
if args.auth:
    kwargs["authenticator"] = authenticate
    kwargs["auth_required"] = True
    # SMTPS is TLS from the first byte, which aiosmtpd's check (made for
    # STARTTLS) does not see.
    kwargs["auth_require_tls"] = args.mode == "starttls"

controller = Controller(Handler(), hostname="127.0.0.1", port=args.port,
                        ssl_context=context if args.mode == "smtps" else None,
                        server_hostname="smtptest-%d" % os.getpid(), **kwargs)
controller.start()
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
stop.wait()
controller.stop()
