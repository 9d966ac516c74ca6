"""The Telegram bot (`manage.py runbot`): registration, subscriptions, mute and snooze.

app.py builds the python-telegram-bot Application, handlers.py holds thin async handlers,
access.py the gate and registration, services.py the synchronous logic per command,
admin_commands.py the registry the operations layer adds /stats and /health to, keyboards.py the
inline buttons.
"""
