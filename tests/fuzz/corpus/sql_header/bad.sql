-- weir: nme=x
-- WEIR: output_schema
-- weir: materialization=MERGE
-- weir: name=a b
SELECT 1
