-- Minimal Neovim configuration for the headless GradGuard test: no plugins, no swap files.
vim.o.swapfile = false
vim.o.shadafile = "NONE"
vim.o.more = false
vim.o.hidden = true
