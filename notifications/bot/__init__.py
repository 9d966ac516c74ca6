"""The Telegram bot (`manage.py runbot`): registration, subscriptions, mute and snooze.

app.py builds the python-telegram-bot Application, handlers.py holds thin async handlers,
access.py the gate and registration, commands.py the synchronous logic per command (/quiet in
quiet_command.py), admin_commands.py the registry the operations layer adds /stats and /health
to, keyboards.py the inline buttons.
"""
