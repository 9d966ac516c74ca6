"""A fake Telegram Bot API: real HTTP on 127.0.0.1, the Bot API's JSON shapes.

    server = FakeTelegram().start()
    Bot(server.token, base_url=f"{server.base_url}/bot")   # URLs: {base_url}/bot{token}/{method}
    server.messages        # every delivered message: dicts with method, chat_id, text, caption,
    photo, ...
    server.rate_limit(overall=30, per_chat=1)   # 429 + retry_after beyond these
    server.fail(status=500, times=2)            # generic failure rule (see fail())
    server.hang(seconds=5)                      # no answer for a while, message not delivered
    server.forbid(chat_id) / server.parse_error() / server.migrate(chat_id, new_id) /
    server.fail_photo()
    server.bad_results = 1                      # next send answers ok with a result that is not a
    Message
    server.uploads                              # bodies of multipart requests (a file was uploaded)
    server.photos(chat_id)                      # bytes of the photos uploaded to a chat, in order
    server.down = True                          # connections closed without an answer
    server.count_429, server.requests

The bot side (long polling):
    server.push_message(chat_id, "/start")      # also push_callback(), push_my_chat_member(),
    push_migration(), push_update(dict)
    server.replies(chat_id)                     # texts the bot sent to that chat
    server.callback_answers, server.edits, server.commands, server.polls, server.webhook_deletes
getUpdates honours `offset` (older updates count as confirmed and are dropped) and `timeout`
(waits until an update is pushed, at most min(timeout, max_poll_wait) seconds).
"""

import email.parser
import email.policy
import itertools
import json
import math
import re
import threading
import time
from collections import defaultdict, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

SEND_METHODS = {"sendMessage", "sendPhoto"}
# What Telegram marks as a bot_command entity: "/stats." → "/stats", "/x@bot 1" → "/x@bot".
COMMAND_ENTITY = re.compile(r"/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]{3,32})?")
BOT_USER = {"id": 4242, "is_bot": True, "first_name": "Lago", "username": "lago_test_bot"}


class _Rule:
    def __init__(self, methods, chat_id, times, status, description, parameters, hang):
        self.methods, self.chat_id, self.times = methods, chat_id, times
        self.status, self.description, self.parameters, self.hang = (
            status,
            description,
            parameters,
            hang,
        )

    def matches(self, method, chat_id):
        if self.times is not None and self.times <= 0:
            return False
        return (self.methods is None or method in self.methods) and (
            self.chat_id is None or self.chat_id == chat_id
        )


class FakeTelegram:
    def __init__(self, token="123456789:AAFakeTokenForTests_abcdefghijklmnop"):
        self.token = token
        self.lock = threading.Lock()
        self.released = threading.Event()
        self.message_ids = itertools.count(1)
        self.down = False
        self.max_poll_wait = 1.0
        self.update_ids = itertools.count(1)
        self.pushed = threading.Condition(self.lock)
        self.reset()
        self._server = None

    # --- lifecycle -------------------------------------------------------

    def start(self):
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self):
        self.released.set()  # wake hanging handlers
        with self.pushed:
            self.stopping = True
            self.pushed.notify_all()
        self._server.shutdown()
        self._server.server_close()

    @property
    def base_url(self):
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def reset(self):
        with self.lock:
            self.messages, self.requests, self.updates, self.rules = [], [], [], []
            self.callback_answers, self.edits, self.commands = [], [], {}
            self.polls = self.webhook_deletes = 0
            self.stopping = False
            self.count_429 = 0
            self.bad_results = 0
            self.uploads = []
            self.limits = None
            self.sent_at = deque()
            self.chat_sent_at = defaultdict(deque)

    # --- knobs -------------------------------------------------------------

    def rate_limit(self, overall=30, per_chat=1, group_per_minute=20):
        """429 with retry_after for more than `overall` messages in any second, more than
        `per_chat` per second to one private chat, `group_per_minute` to one group."""
        self.limits = (overall, per_chat, group_per_minute)

    def fail(
        self,
        status=500,
        description="Internal Server Error",
        *,
        methods=SEND_METHODS,
        chat_id=None,
        times=1,
        parameters=None,
        hang=None,
    ):
        """Answer matching calls with an error (times=None: forever). `hang` seconds: no answer,
        nothing delivered."""
        with self.lock:
            self.rules.append(
                _Rule(
                    set(methods) if methods else None,
                    chat_id,
                    times,
                    status,
                    description,
                    parameters,
                    hang,
                )
            )

    def hang(self, seconds, times=1, methods=SEND_METHODS, chat_id=None):
        self.fail(methods=methods, chat_id=chat_id, times=times, hang=seconds)

    def forbid(self, chat_id, description="Forbidden: bot was blocked by the user"):
        self.fail(403, description, chat_id=chat_id, times=None)

    def parse_error(self, chat_id=None, times=1):
        self.fail(
            400,
            "Bad Request: can't parse entities: unsupported start tag",
            chat_id=chat_id,
            times=times,
        )

    def fail_photo(self, times=None):
        self.fail(
            400,
            "Bad Request: wrong type of the web page content",
            methods={"sendPhoto"},
            times=times,
        )

    def migrate(self, chat_id, new_chat_id):
        self.fail(
            400,
            "Bad Request: group chat was upgraded to a supergroup chat",
            chat_id=chat_id,
            times=None,
            parameters={"migrate_to_chat_id": new_chat_id},
        )

    # --- views for tests -------------------------------------------------

    def texts(self, chat_id=None):
        return [
            m["text"] or m["caption"]
            for m in self.messages
            if chat_id is None or m["chat_id"] == chat_id
        ]

    def sent_twice(self):
        """Messages whose exact text reached the same chat more than once."""
        seen = defaultdict(int)
        for m in self.messages:
            seen[(m["chat_id"], m["text"] or m["caption"])] += 1
        return sum(1 for n in seen.values() if n > 1)

    def photos(self, chat_id=None):
        """The bytes of the photos uploaded (not sent by URL), oldest first."""
        with self.lock:
            return [
                m["photo_bytes"]
                for m in self.messages
                if m["photo_bytes"] is not None and chat_id in (None, m["chat_id"])
            ]

    def replies(self, chat_id):
        """Texts (or captions) of the messages sent to `chat_id`, oldest first."""
        return self.texts(chat_id)

    # --- updates for the bot -------------------------------------------------

    def push_update(self, update):
        """Queues one Bot API Update dict (update_id assigned when missing); returns it."""
        with self.pushed:
            update.setdefault("update_id", next(self.update_ids))
            self.updates.append(update)
            self.pushed.notify_all()
        return update

    def push_message(
        self,
        chat_id,
        text,
        *,
        user_id=None,
        chat_type=None,
        title=None,
        username=None,
        edited=False,
        language_code=None,
        **extra,
    ):
        """A text message (a bot_command entity where Telegram marks one); `edited`: an
        edited_message.

        `language_code`: the sender's Telegram language ("en", "de-AT"), as Telegram sends it on
        `from`.
        """
        message = _message(chat_id, user_id, chat_type, title, username)
        if language_code:
            message["from"]["language_code"] = language_code
        message["text"] = text
        command = COMMAND_ENTITY.match(text)
        if command:
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": command.end()}]
        if edited:
            message["edit_date"] = int(time.time())
        message.update(extra)
        return self.push_update({"edited_message" if edited else "message": message})

    def push_callback(
        self, chat_id, data, *, message_id=1, user_id=None, message_text="(message with buttons)"
    ):
        """A button press on message `message_id` in `chat_id`."""
        message = _message(chat_id, None, None, None, None)
        message.update(message_id=message_id, text=message_text, **{"from": BOT_USER})
        user = _user(user_id or abs(chat_id))
        query = {
            "id": f"cq{next(self.message_ids)}",
            "from": user,
            "chat_instance": f"ci{chat_id}",
            "data": data,
            "message": message,
        }
        return self.push_update({"callback_query": query})

    def push_my_chat_member(self, chat_id, new_status="kicked", old_status="member"):
        """The bot's own membership changed (a private chat blocking the bot: "kicked")."""

        def member(status):
            return {
                "user": BOT_USER,
                "status": status,
                **({"until_date": 0} if status == "kicked" else {}),
            }

        change = {
            "chat": _chat(chat_id),
            "from": _user(abs(chat_id)),
            "date": int(time.time()),
            "old_chat_member": member(old_status),
            "new_chat_member": member(new_status),
        }
        return self.push_update({"my_chat_member": change})

    def push_migration(self, chat_id, new_chat_id):
        """The service message a group gets when it becomes a supergroup."""
        message = _message(chat_id, None, "group", "Group", None)
        message["migrate_to_chat_id"] = new_chat_id
        return self.push_update({"message": message})

    def _get_updates(self, params):
        offset = _int(params.get("offset")) or 0
        wait = min(float(params.get("timeout") or 0), self.max_poll_wait)
        deadline = time.monotonic() + wait
        with self.pushed:
            self.polls += 1
            self.updates = [u for u in self.updates if u["update_id"] >= offset]
            while not self.updates and not self.stopping and time.monotonic() < deadline:
                self.pushed.wait(deadline - time.monotonic())
            return 200, {"ok": True, "result": list(self.updates)}

    def _bot_method(self, method, params, chat_id):
        """answerCallbackQuery, edits, setMyCommands, deleteWebhook; None for other methods."""
        with self.lock:
            if method == "answerCallbackQuery":
                self.callback_answers.append(
                    {
                        "callback_query_id": params.get("callback_query_id"),
                        "text": params.get("text"),
                        "show_alert": _json(params.get("show_alert")) is True,
                    }
                )
                return 200, {"ok": True, "result": True}
            if method in {"editMessageReplyMarkup", "editMessageText"}:
                edit = {
                    "method": method,
                    "chat_id": chat_id,
                    "message_id": _int(params.get("message_id")),
                    "text": params.get("text"),
                    "reply_markup": _json(params.get("reply_markup")),
                }
                self.edits.append(edit)
                message = {
                    "message_id": edit["message_id"],
                    "date": int(time.time()),
                    "chat": _chat(chat_id),
                    "from": BOT_USER,
                    "text": edit["text"] or "(edited)",
                }
                return 200, {"ok": True, "result": message}
            if method == "setMyCommands":
                scope = _json(params.get("scope")) or {"type": "default"}
                key = scope["type"] if "chat_id" not in scope else f"chat:{scope['chat_id']}"
                self.commands[key] = [c["command"] for c in _json(params.get("commands"))]
                return 200, {"ok": True, "result": True}
            if method == "deleteWebhook":
                self.webhook_deletes += 1
                return 200, {"ok": True, "result": True}
        return None

    # --- request handling --------------------------------------------------

    def handle(self, method, params):
        """Returns (status, body) or None to drop the connection."""
        chat_id = _int(params.get("chat_id"))
        with self.lock:
            self.requests.append({"method": method, "chat_id": chat_id, "at": time.monotonic()})
            rule = next((r for r in self.rules if r.matches(method, chat_id)), None)
            if rule and rule.times is not None:
                rule.times -= 1
        if rule and rule.hang:
            self.released.wait(rule.hang)
            return None
        if rule:
            body = {"ok": False, "error_code": rule.status, "description": rule.description}
            if rule.parameters:
                body["parameters"] = rule.parameters
            return rule.status, body
        return self._answer(method, params, chat_id)

    def _answer(self, method, params, chat_id):
        if method in SEND_METHODS:
            return self._send(method, params, chat_id)
        if method == "getMe":
            return 200, {"ok": True, "result": BOT_USER}
        if method == "getUpdates":
            return self._get_updates(params)
        answer = self._bot_method(method, params, chat_id)
        if answer is not None:
            return answer
        return 404, {"ok": False, "error_code": 404, "description": "Not Found: method not found"}

    def _send(self, method, params, chat_id):
        with self.lock:
            if self.bad_results:
                self.bad_results -= 1
                return 200, {"ok": True, "result": "not a message"}
            wait = self._limit_wait(chat_id, time.monotonic())
            if wait:
                self.count_429 += 1
                return 429, {
                    "ok": False,
                    "error_code": 429,
                    "description": f"Too Many Requests: retry after {wait}",
                    "parameters": {"retry_after": wait},
                }
            message = {
                "message_id": next(self.message_ids),
                "date": int(time.time()),
                "chat": _chat(chat_id),
                "from": BOT_USER,
            }
            record = {
                "method": method,
                "chat_id": chat_id,
                "text": params.get("text"),
                "caption": params.get("caption"),
                "photo": params.get("photo"),
                # The bytes of an uploaded photo (multipart), None for a photo sent by URL.
                "photo_bytes": params.get(_FILES, {}).get("photo"),
                "parse_mode": params.get("parse_mode"),
                "reply_markup": _json(params.get("reply_markup")),
                "message_id": message["message_id"],
                "at": time.monotonic(),
            }
            self.messages.append(record)
        if method == "sendPhoto":
            message.update(
                photo=[{"file_id": "photo1", "file_unique_id": "u1", "width": 800, "height": 600}],
                caption=record["caption"],
            )
        else:
            message["text"] = record["text"]
        return 200, {"ok": True, "result": message}

    def _limit_wait(self, chat_id, now):
        """Seconds to retry after (0: accepted and counted)."""
        if self.limits is None:
            return 0
        overall, per_chat, group_per_minute = self.limits
        window, limit = (
            (60.0, group_per_minute) if chat_id is not None and chat_id < 0 else (1.0, per_chat)
        )
        recent, mine = self.sent_at, self.chat_sent_at[chat_id]
        while recent and recent[0] <= now - 1.0:
            recent.popleft()
        while mine and mine[0] <= now - window:
            mine.popleft()
        if len(recent) >= overall:
            return max(1, math.ceil(recent[0] + 1.0 - now))
        if len(mine) >= limit:
            return max(1, math.ceil(mine[0] + window - now))
        recent.append(now)
        mine.append(now)
        return 0


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


def _json(value):
    """Bot API parameters arrive JSON-encoded in form fields (objects, booleans) or as JSON
    bodies."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _chat(chat_id, chat_type=None, title=None, username=None):
    chat_type = chat_type or (
        "supergroup" if isinstance(chat_id, int) and chat_id < 0 else "private"
    )
    chat = {"id": chat_id, "type": chat_type}
    if chat_type == "private":
        chat["first_name"] = title or f"User {chat_id}"
    else:
        chat["title"] = title or f"Group {chat_id}"
    if username:
        chat["username"] = username
    return chat


def _user(user_id):
    return {"id": user_id, "is_bot": False, "first_name": f"User {user_id}"}


def _message(chat_id, user_id, chat_type, title, username):
    return {
        "message_id": 1,
        "date": int(time.time()),
        "chat": _chat(chat_id, chat_type, title, username),
        "from": _user(user_id or abs(chat_id)),
    }


# Where _multipart() puts the uploaded files ({field: bytes}) among the text parameters.
_FILES = "__files__"


def _multipart(content_type, raw):
    """A multipart/form-data body as the Bot API reads it: text fields as parameters, files (parts
    with a file name) as bytes under _FILES, by field name. A field "photo" given as
    "attach://<name>" names the file part <name>."""
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    params, files = {}, {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        if part.get_filename() is not None:
            files[name] = payload
        else:
            params[name] = payload.decode("utf-8", "replace")
    for field, value in list(params.items()):
        if value.startswith("attach://") and value[len("attach://") :] in files:
            files[field] = files[value[len("attach://") :]]
    params[_FILES] = files
    return params


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    fake: FakeTelegram

    def do_POST(self):
        self._dispatch(self._body_params())

    def do_GET(self):
        query = self.path.partition("?")[2]
        self._dispatch({k: v[0] for k, v in parse_qs(query).items()})

    def _body_params(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Type", "").startswith("multipart/"):
            with self.fake.lock:
                self.fake.uploads.append(raw)
            return _multipart(self.headers["Content-Type"], raw)
        raw = raw.decode("utf-8", "replace")
        if self.headers.get("Content-Type", "").startswith("application/json"):
            return json.loads(raw or "{}")
        return {k: v[0] for k, v in parse_qs(raw).items()}

    def _dispatch(self, params):
        if self.fake.down:
            self.close_connection = True
            return
        prefix, _, method = self.path.partition("?")[0].rpartition("/")
        if prefix != f"/bot{self.fake.token}":
            return self._reply(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
        answer = self.fake.handle(method, params)
        if answer is None:
            self.close_connection = True
            return
        self._reply(*answer)

    def _reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a long poll cancelled at shutdown)

    def log_message(self, format, *args):
        pass  # the request line carries the token; tests inspect server.requests instead
