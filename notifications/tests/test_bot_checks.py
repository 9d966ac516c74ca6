from operations.checks import check_bot_poll_timeout


def test_poll_timeout_must_fit_the_bot_heartbeat_threshold(settings):
    assert check_bot_poll_timeout() == []
    settings.TELEGRAM_POLL_TIMEOUT_S = 120
    [error] = check_bot_poll_timeout()
    assert error.id == "lago.E004"
