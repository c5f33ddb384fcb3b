function() { return this.isConnected }
