-- Headless Neovim test of `gradguard lsp` with Neovim's built-in LSP client (0.7 API, which
-- newer releases still support): open the file, wait for each expected GradGuard diagnostic,
-- request its code actions, apply the quick fix, write the file.
--
-- Environment: GG_SERVER (JSON array: the server command), GG_CODES (comma-separated codes
-- to fix, in order), GG_RESULT (path of the JSON report read by tests/nvim/test_neovim.py).

local result = { observed = {}, applied = {}, final = nil, error = nil, offset_encoding = nil }
local published = {}   -- uri -> raw diagnostics of the latest publish (with `data` intact)
local publishes = 0    -- number of publishDiagnostics received, to wait for a fresh one

local function write_result()
  local file = assert(io.open(os.getenv("GG_RESULT"), "w"))
  file:write(vim.json.encode(result))
  file:close()
end

local function wait_for(what, condition)
  if not vim.wait(30000, condition, 20) then
    error("timed out waiting for " .. what)
  end
end

local function run()
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(bufnr)
  local on_publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
  local client_id = vim.lsp.start_client({
    name = "gradguard",
    cmd = vim.json.decode(os.getenv("GG_SERVER")),
    root_dir = vim.fn.getcwd(),
    init_options = { debounceMs = 0 },
    handlers = {
      -- vim.diagnostic.get() returns converted copies without `data`; keep the raw ones.
      ["textDocument/publishDiagnostics"] = function(err, params, ctx, config)
        published[params.uri] = params.diagnostics
        publishes = publishes + 1
        return on_publish(err, params, ctx, config)
      end,
    },
  })
  assert(client_id, "the language server did not start")
  vim.lsp.buf_attach_client(bufnr, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  wait_for("initialization", function() return client.initialized end)
  result.offset_encoding = client.offset_encoding

  for code in string.gmatch(os.getenv("GG_CODES"), "[^,]+") do
    local diagnostic
    local seen = publishes
    wait_for(code, function()
      for _, d in ipairs(published[uri] or {}) do
        if d.code == code then
          diagnostic = d
          return true
        end
      end
      return false
    end)
    table.insert(result.observed, {
      code = diagnostic.code,
      line = diagnostic.range.start.line,
      character = diagnostic.range.start.character,
      source = diagnostic.source,
      message = diagnostic.message,
    })
    local response = client.request_sync("textDocument/codeAction", {
      textDocument = { uri = uri },
      range = diagnostic.range,
      context = { diagnostics = { diagnostic }, only = { "quickfix" } },
    }, 10000, bufnr)
    assert(response and not response.err, "codeAction failed: " .. vim.inspect(response))
    local chosen
    local prefix = "GradGuard (" .. code .. "): "
    for _, action in ipairs(response.result or {}) do
      if not chosen and action.title:sub(1, #prefix) == prefix then
        chosen = action
      end
    end
    assert(chosen, "no quick fix for " .. code .. " in " .. vim.inspect(response.result))
    if not chosen.edit then
      local resolved = client.request_sync("codeAction/resolve", chosen, 10000, bufnr)
      assert(resolved and not resolved.err, "resolve failed: " .. vim.inspect(resolved))
      chosen = resolved.result
    end
    vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
    table.insert(result.applied, chosen.title)
    -- The edit changes the buffer; wait for the diagnostics of the new text.
    wait_for("diagnostics after fixing " .. code, function() return publishes > seen end)
  end

  vim.cmd("write")
  local seen = publishes
  vim.lsp.buf_notify(bufnr, "textDocument/didSave", { textDocument = { uri = uri } })
  wait_for("diagnostics after saving", function() return publishes > seen end)
  result.final = {}
  for _, d in ipairs(published[uri] or {}) do
    table.insert(result.final, d.code)
  end
end

local ok, err = pcall(run)
if not ok then
  result.error = tostring(err)
end
pcall(write_result)
if ok then
  vim.cmd("0cquit")
else
  vim.cmd("cquit 3")
end
