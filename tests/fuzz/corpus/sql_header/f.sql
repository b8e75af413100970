-- weir: name=f
-- weir: materialization=REPLACE
-- weir: output_schema=WomenByClass
SELECT PassengerId AS pid, Pclass AS tclass, Fare
FROM titanic
WHERE Pclass IN (1, 2) AND Sex = 'female'
