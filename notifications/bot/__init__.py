"""The Telegram bot (`manage.py runbot`): registration, subscriptions, mute and snooze.

app.py builds the python-telegram-bot Application, handlers.py holds thin async handlers,
services.py the synchronous logic per command, keyboards.py the inline buttons.
"""
