package browser
