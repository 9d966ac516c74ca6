from notifications.models import TelegramChat

def test_smoke(bot):
    r = bot.send(600, "/start")
    print(r)
    print(bot.send(700, "/start"))
    print(bot.send(700, "/help"))
    print(bot.send(600, "/foo"))
    print(bot.server.commands, bot.server.webhook_deletes)
    print(list(TelegramChat.objects.values()))
