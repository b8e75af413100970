-- weir: name=daily
-- weir: materialization=APPEND   -- keeps history

  -- a comment
SELECT 1 AS x
