function() { this.click(); return true }
